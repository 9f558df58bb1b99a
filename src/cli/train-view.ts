/**
 * The release trains in `promotion-gateway status`: one row per train and gated environment,
 * the combination its release takes (each member's revision and the digest), the release's
 * state and what it waits for (and, after a failure, the members rolled back), read from the
 * PromotionTrains' stored statuses; a train the gateway does not use (Ready=False) is one row
 * saying why.
 */
import { failureSummary } from '../kube/errors.js';
import { listAllPages } from '../kube/pipeline-watch.js';
import { resourcePath, type KubeRest } from '../kube/rest.js';
import { PROMOTION_TRAIN } from '../kube/resources.js';
import { clip, neutralize } from '../text/text.js';
import { checkTrains } from '../trains/train-source.js';
import { trainName, type TrainEnvironment, type UncheckedTrain } from '../trains/train-resource.js';

/** Longest reason and message a refused train's row shows. */
const MAX_REFUSAL = 160;

/**
 * The PromotionTrains of `namespace` (undefined: every namespace), usable or not, by name; none
 * where the CRD is not installed. Another failed read is an Error naming why, without credentials.
 */
export async function readTrains(
  rest: KubeRest,
  namespace: string | undefined,
): Promise<UncheckedTrain[]> {
  try {
    const path = resourcePath(PROMOTION_TRAIN, namespace);
    const page = (token: string | undefined) => rest.get(path, { limit: 500, continue: token });
    const listed = checkTrains((await listAllPages(page)).items);
    return [...listed.trains, ...listed.invalid.map((i) => i.train)].sort((a, b) =>
      trainName(a) < trainName(b) ? -1 : 1,
    );
  } catch (error) {
    const { message, reason } = failureSummary(error);
    if (reason === 'NotFound') return [];
    throw new Error(`cannot read PromotionTrains: ${message}`);
  }
}

const HEADERS = ['TRAIN', 'ENVIRONMENT', 'STATE', 'COMBINATION', 'WAITING'];

/** The trains' table, or nothing when there is no train. */
export function renderTrains(trains: readonly UncheckedTrain[]): string {
  const rows = trains.flatMap((train) => {
    const ready = train.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'False') {
      const why = clip(`${ready.reason}: ${ready.message}`, MAX_REFUSAL);
      return [[trainName(train), '-', 'NotReady', why, ''].map((cell) => neutralize(cell))];
    }
    return (train.status?.environments ?? []).map((env) => {
      const release = env.release;
      const members = Object.entries(release?.members ?? {})
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, revision]) => `${name}=${revision}`)
        .join(' ');
      return [
        trainName(train),
        env.name,
        release?.state ?? '-',
        release === undefined ? '-' : `${members} (${release.digest.slice(0, 19)}…)`,
        waitingOf(release),
      ].map((cell) => neutralize(cell));
    });
  });
  if (rows.length === 0) return '';
  const cells = [HEADERS, ...rows];
  const widths = HEADERS.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const lines = cells.map((line) =>
    line
      .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  return `\n${lines.join('\n')}\n`;
}

/** The members the release waits for (or that failed it), and those rolled back since. */
function waitingOf(release: NonNullable<TrainEnvironment['release']> | undefined): string {
  const waiting = release?.waitingFor?.join(', ') ?? '';
  const rolledBack = release?.rolledBack ?? [];
  if (rolledBack.length === 0) return waiting;
  return [waiting, `rolled back: ${rolledBack.join(', ')}`].filter((p) => p !== '').join('; ');
}
