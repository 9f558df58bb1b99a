/**
 * One approval of a release train's combination, recorded on every member (docs/approvals.md,
 * "Approving a release train"): the train is read fresh, its release into the environment must be
 * Waiting for exactly the combination approved (else CombinationChanged), every member whose
 * environment has an approval gate must allow the principal (else nothing is recorded), and then
 * each such member's approval is recorded through the Authorizer, as one of that member's own
 * approvals (re-verified, replay-safe, announced, re-checked), marked with the combination's
 * digest: the evaluator counts it only while the train's release there is that combination
 * (evaluate/train-gate.ts, forCombination). The train's pass then finds every member's gates met
 * and starts the release.
 */
import type { Principal, TrainApprovalClaim } from '../auth/identity.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import { allows, gateOf, type GateFloor } from '../evaluate/gate.js';
import type { KubeObject } from '../kube/ports.js';
import { pipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { recordedJti } from '../text/bounded-id.js';
import { display } from '../text/text.js';
import type { TrainBook } from '../trains/train-book.js';
import { checkTrain } from '../trains/train-check.js';
import { memberRef, resolveTrain, type MemberCandidate } from '../trains/train-members.js';
import { asUncheckedTrain } from '../trains/train-resource.js';
import { recordOf, type AuthorizationRefusal } from './answers.js';
import {
  changed,
  memberClaim,
  refused,
  short,
  type TrainApprovalResult,
  type TrainMemberAnswer,
  type TrainApprovalAnswer,
} from './train-approval-answers.js';

export type {
  TrainApprovalAnswer,
  TrainApprovalRefusal,
  TrainApprovalResult,
  TrainMemberAnswer,
} from './train-approval-answers.js';
import type { Authorizer } from './authorizer.js';
import { isUsed } from './approval-record.js';

/** What a train approval needs. */
export interface TrainApprovalDeps {
  /** A fresh GET of a PromotionTrain from the API server (undefined: none). */
  trains: { getTrain(namespace: string, name: string): Promise<KubeObject | undefined> };
  /** What this replica knows of the trains: brought up to the train as read. */
  book: Pick<TrainBook, 'replace'>;
  /** The Pipelines of a namespace, as a train resolves its members against them. */
  candidates: (namespace: string) => readonly MemberCandidate[];
  catalog: Pick<PipelineCatalog, 'get'>;
  /** Approval floors by environment name (config authorizations.floors). */
  floors: Readonly<Record<string, GateFloor | undefined>>;
  /** Records each member's approval as any approval of that Pipeline is recorded. */
  authorizer: Pick<Authorizer, 'submit'>;
  now: () => number;
}

/** One member of the release and what its gate makes of the approval. */
interface MemberPlan {
  name: string;
  revision: string;
  pipeline?: Pipeline;
  gated: boolean;
}

/** One approval being recorded: the train (`namespace/name`), where, by whom, what. */
interface Ask {
  train: string;
  namespace: string;
  environment: string;
  principal: Principal;
  claim: TrainApprovalClaim;
}

/** Records train approvals; see the module comment. */
export class TrainApprovals {
  constructor(private readonly deps: TrainApprovalDeps) {}

  /**
   * Approves (or rejects) the combination `claim` names for `environment` of train `ref` as
   * `principal`: the answer, or a refusal. Rejects only as the Authorizer does (the management
   * cluster failing, a re-read target's cluster unreachable).
   */
  async submit(
    ref: { namespace: string; name: string },
    environment: string,
    principal: Principal,
    claim: TrainApprovalClaim,
  ): Promise<TrainApprovalResult> {
    const train = await this.read(ref);
    if (train === undefined) return refused({ reason: 'NotFound' });
    if (!resolveTrain(train, this.deps.candidates).environments.includes(environment))
      return refused({ reason: 'NotFound' });
    // A used statement is a replay whatever the release's state: answered before anything else.
    if (this.usedOnEvery(ref.namespace, train.status?.members ?? [], environment, principal))
      return refused({ reason: 'Replayed' });
    const release = train.status?.environments?.find((e) => e.name === environment)?.release;
    const name = `${ref.namespace}/${ref.name}`;
    if (release?.digest !== claim.combinationDigest)
      return refused({ reason: 'CombinationChanged', detail: changed(name, environment, release) });
    if (release.state !== 'Waiting')
      return refused({
        reason: 'NotWaiting',
        detail: `train ${name}'s release ${short(release.digest)} into ${environment} is ${release.state}, not Waiting: it takes no approval`,
      });
    const plans = this.plan(ref.namespace, environment, release.members);
    const probe = recordOf(principal, { revision: '', decision: claim.decision }, 0);
    const forbidden = plans.find(
      (p) => p.gated && p.pipeline !== undefined && !this.allowed(p.pipeline, environment, probe),
    );
    if (forbidden !== undefined)
      return refused({
        reason: 'Forbidden',
        detail: `The approval gate of ${qualified(ref.namespace, forbidden.name)} in ${environment} does not allow ${display(principal.name)}; nothing was recorded.`,
      });
    if (!plans.some((p) => p.gated))
      return refused({
        reason: 'NotWaiting',
        detail: `no member of train ${name} has an approval gate in ${environment}`,
      });
    // The evaluations the records are judged on see the release as just read.
    this.deps.book.replace(train);
    return this.record(
      { train: name, namespace: ref.namespace, environment, principal, claim },
      plans,
    );
  }

  private async read(ref: { namespace: string; name: string }) {
    const object = await this.deps.trains.getTrain(ref.namespace, ref.name);
    const unchecked = object === undefined ? undefined : asUncheckedTrain(object);
    if (unchecked === undefined) return undefined;
    const checked = checkTrain(unchecked);
    return checked.ok ? checked.train : undefined;
  }

  /** Whether the credential's id is recorded on every gated member of the train already. */
  private usedOnEvery(
    namespace: string,
    members: readonly string[],
    environment: string,
    principal: Principal,
  ): boolean {
    if (principal.jti === undefined) return false;
    const jti = recordedJti(principal.jti);
    const gated = this.plan(
      namespace,
      environment,
      Object.fromEntries(members.map((m) => [m, ''])),
    ).filter((p) => p.gated && p.pipeline !== undefined);
    return gated.length > 0 && gated.every((p) => isUsed(p.pipeline?.status, jti));
  }

  /** The release's members in name order, each with its loaded Pipeline and whether it is gated. */
  private plan(
    namespace: string,
    environment: string,
    members: Readonly<Record<string, string>>,
  ): MemberPlan[] {
    return Object.keys(members)
      .sort()
      .map((name) => {
        const revision = members[name] ?? '';
        const pipeline = this.deps.catalog.get(pipelineId(memberRef(namespace, name)));
        const env = pipeline?.spec.environments.find((e) => e.name === environment);
        const gate = pipeline && env && gateOf(pipeline.spec, env, this.deps.floors[environment]);
        const base = { name, revision, gated: gate !== undefined };
        return pipeline === undefined ? base : { ...base, pipeline };
      });
  }

  private allowed(pipeline: Pipeline, environment: string, probe: ReturnType<typeof recordOf>) {
    const env = pipeline.spec.environments.find((e) => e.name === environment);
    const gate = env && gateOf(pipeline.spec, env, this.deps.floors[environment]);
    return gate === undefined || allows(gate, probe);
  }

  /** Each gated member's record, one after another; the answer, or the first refusal of all. */
  private async record(ask: Ask, plans: readonly MemberPlan[]): Promise<TrainApprovalResult> {
    const { train, namespace, environment, principal, claim } = ask;
    const members: TrainMemberAnswer[] = [];
    const refusals: AuthorizationRefusal[] = [];
    for (const plan of plans) {
      const ref = memberRef(namespace, plan.name);
      const pipeline = qualified(namespace, plan.name);
      const base = { pipeline, revision: plan.revision };
      if (!plan.gated) {
        members.push({ ...base, outcome: 'notGated' });
        continue;
      }
      const result = await this.deps.authorizer.submit(ref, environment, principal, {
        ...memberClaim(claim),
        revision: plan.revision,
      });
      if (result.ok) {
        const { state, gate } = result.answer;
        members.push({
          ...base,
          outcome: 'recorded',
          state,
          ...(gate === undefined ? {} : { gate }),
        });
        continue;
      }
      if (result.refusal.reason === 'Replayed' && this.heldBefore(ask, plan)) {
        members.push({ ...base, outcome: 'recordedBefore' });
        continue;
      }
      refusals.push(result.refusal);
      const detail = 'detail' in result.refusal ? result.refusal.detail : result.refusal.reason;
      members.push({ ...base, outcome: 'notWaiting', detail: detail ?? result.refusal.reason });
    }
    if (!members.some((m) => m.outcome === 'recorded')) {
      const [first] = refusals;
      return refused(first ?? { reason: 'Replayed' });
    }
    const answer: TrainApprovalAnswer = {
      recorded: true,
      train,
      environment,
      combinationDigest: claim.combinationDigest,
      principal: principal.name,
      decision: claim.decision,
      members,
    };
    return { ok: true, answer };
  }

  /**
   * Whether the member holds this very statement already (an earlier call recorded it there
   * before it was cut short): its credential id, for this combination, by this principal.
   */
  private heldBefore(ask: Ask, plan: MemberPlan): boolean {
    const { namespace, environment, principal, claim } = ask;
    if (principal.jti === undefined) return false;
    const jti = recordedJti(principal.jti);
    const stored = this.deps.catalog.get(pipelineId({ namespace, name: plan.name }));
    const records = stored?.status?.environments?.[environment]?.approvals ?? [];
    return records.some(
      (r) =>
        r.jti === jti &&
        r.principal === principal.name &&
        r.combinationDigest === claim.combinationDigest &&
        r.revision === plan.revision,
    );
  }
}

/** A member's Pipeline as `namespace/name`, whether the train names it so or by name alone. */
function qualified(trainNamespace: string, member: string): string {
  const { namespace, name } = memberRef(trainNamespace, member);
  return `${namespace}/${name}`;
}
