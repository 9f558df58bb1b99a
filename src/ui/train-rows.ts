/**
 * The release trains on the fleet page: one row per train the viewer may see (every member is
 * a Pipeline it may see), its members in order and, per gated environment, the combination its
 * release takes (the digest short, with a copy button), the release's state, what waits and why;
 * a detail under each row lists each member's revision per environment and the combinations seen
 * together. Read from the trains' stored status (PromotionTrain), as this replica last listed
 * them. Sent whole over the live stream when they change (`trains` frames). Pure.
 */
import { pipelineId } from '../pipeline/id.js';
import { memberRef } from '../trains/train-members.js';
import {
  trainName,
  type PromotionTrain,
  type TrainEnvironment,
  type TrainRelease,
} from '../trains/train-resource.js';
import { html, join, type SafeHtml } from './html.js';
import { sseFrame } from './sse.js';
import { idHtml } from './short-ids.js';
import type { Viewer } from './ui-access.js';
import type { Tone } from './waits.js';

const TONES: Record<TrainRelease['state'], Tone> = {
  Waiting: 'wait',
  Promoting: 'info',
  Succeeded: 'ok',
  Failed: 'fail',
};

/** The member names a train shows: those found (status), else those its spec lists. */
function membersOf(train: PromotionTrain): string[] {
  return train.status?.members ?? (train.spec.members ?? []).map((m) => m.name);
}

/** The trains `viewer` may see: those whose members are all Pipelines it may see. */
export function visibleTrains(trains: readonly PromotionTrain[], viewer: Viewer): PromotionTrain[] {
  return trains.filter((train) => {
    const members = membersOf(train);
    if (members.length === 0) return viewer.scopeKey === '*';
    return members.every((m) => viewer.sees(pipelineId(memberRef(train.metadata.namespace, m))));
  });
}

/** The trains' section of the fleet page; empty when there is none to show. */
export function trainsSection(trains: readonly PromotionTrain[]): SafeHtml {
  if (trains.length === 0) return html`<section id="trains" hidden></section>`;
  return html`<section id="trains" class="trains" aria-labelledby="trains-heading">
    <h2 id="trains-heading">Release trains</h2>
    <table class="trains" data-testid="trains">
      <thead>
        <tr>
          <th scope="col">Train</th>
          <th scope="col">Members</th>
          <th scope="col">Gated environments: combination, state, what waits</th>
        </tr>
      </thead>
      <tbody>
        ${trains.map(trainRow)}
      </tbody>
    </table>
  </section>`;
}

/** The `trains` frame: the section as `viewer` may see it. */
export function trainsFrame(
  trains: readonly PromotionTrain[],
  viewer: Viewer,
  token: string,
): string {
  const section = trainsSection(visibleTrains(trains, viewer)).text;
  return sseFrame({ event: 'trains', id: token, data: JSON.stringify({ html: section }) });
}

function trainRow(train: PromotionTrain): SafeHtml {
  const name = trainName(train);
  const ready = train.status?.conditions?.find((c) => c.type === 'Ready');
  const refused = ready?.status === 'False';
  const order = new Map((train.spec.members ?? []).map((m) => [m.name, m.dependsOn ?? []]));
  const members = membersOf(train).map((m) => {
    const after = order.get(m) ?? [];
    return html`<li>
      ${m}${after.length === 0 ? '' : html` <small>after ${after.join(', ')}</small>`}
    </li>`;
  });
  const environments = train.status?.environments ?? [];
  return html`<tr data-testid="train-row" data-train="${name}" class="${refused ? 't-fail' : ''}">
    <th scope="row">
      ${name}
      ${
        refused
          ? html`<small data-testid="train-ready"
              >not used: ${ready.reason} — ${ready.message}</small
            >`
          : train.spec.suspend === true
            ? html`<small data-testid="train-ready">suspended</small>`
            : ''
      }
    </th>
    <td>
      <ul class="members">
        ${members}
      </ul>
    </td>
    <td>
      <ul class="train-envs">
        ${
          environments.length === 0
            ? html`<li class="muted">nothing recorded yet</li>`
            : environments.map(envBox)
        }
      </ul>
      ${environments.length === 0 ? '' : detail(name, environments)}
    </td>
  </tr>`;
}

function envBox(env: TrainEnvironment): SafeHtml {
  const release = env.release;
  if (release === undefined)
    return html`<li data-testid="train-env" data-env="${env.name}" class="t-muted">
      <b>${env.name}</b><span class="state">no combination seen yet</span>
    </li>`;
  const waits = release.waitingFor ?? [];
  return html`<li data-testid="train-env" data-env="${env.name}" class="t-${TONES[release.state]}">
    <b>${env.name}</b>
    <span data-testid="train-digest">${idHtml(release.digest, 'combination digest')}</span>
    <span data-testid="train-state" class="state">${release.state}</span>
    ${waits.length === 0 ? '' : html`<span data-testid="train-waits">waits for ${waits.join(', ')}</span>`}
    ${
      release.message === undefined || release.message === ''
        ? ''
        : html`<span class="why">${release.message}</span>`
    }
  </li>`;
}

function detail(name: string, environments: readonly TrainEnvironment[]): SafeHtml {
  const rows = environments.flatMap((env) => {
    const members = Object.entries(env.release?.members ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
    return members.map(
      ([member, revision]) =>
        html`<tr>
          <td>${env.name}</td>
          <td>${member}</td>
          <td>${idHtml(revision, 'revision')}</td>
        </tr>`,
    );
  });
  const seen = environments.flatMap((env) =>
    (env.observed ?? []).map(
      (o) =>
        html`<li>
          ${env.name}: ${idHtml(o.digest, 'combination digest', false)} seen ${o.observedAt}
        </li>`,
    ),
  );
  return html`<details data-detail="${name}">
    <summary>Combination per environment</summary>
    <table class="combination">
      <caption class="vh">
        Each member's revision in the release, per environment
      </caption>
      <thead>
        <tr>
          <th scope="col">Environment</th>
          <th scope="col">Member</th>
          <th scope="col">Revision</th>
        </tr>
      </thead>
      <tbody>
        ${join(rows)}
      </tbody>
    </table>
    ${
      seen.length === 0
        ? ''
        : html`<p>Seen together upstream, newest first:</p>
            <ul>
              ${seen}
            </ul>`
    }
  </details>`;
}
