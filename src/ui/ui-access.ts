/**
 * Who is looking, and which Pipelines they may see: as the API's viewer (GET /v1/pipelines), a
 * bearer JWT verified with `jwt` whose `pipelines` claim (`namespace/name`, `namespace/*`,
 * `*`) names them; in production an auth proxy in front of the view passes the person's OIDC
 * ID token so. With `ui.anonymous` (the demo only) a request without a token sees everything;
 * a token, when sent, is still checked. Every page and every stream is filtered by `sees`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { authenticateBearer, coversPipeline, type AuthSettings } from '../auth/authenticate.js';
import type { Identity } from '../auth/identity.js';
import type { RefusalReason } from '../auth/refusal.js';
import { pipelineRef, type PipelineId } from '../pipeline/id.js';

/** A person (or the anonymous demo reader) and what they may see. */
export interface Viewer {
  /** `anonymous` or the token's `sub`: for logs and the per-viewer stream cap, never a secret. */
  subject: string;
  /** Whether the viewer may see this Pipeline. */
  sees(id: PipelineId): boolean;
  /** Equal for viewers who see the same Pipelines (what they are shown can be shared). */
  scopeKey: string;
  /** The viewer may see no Pipeline at all (a token without a `pipelines` claim). */
  seesNothing: boolean;
}

/** A viewer, or why there is none (the reason goes to the log, never to the page). */
export type ViewerCheck = { ok: true; viewer: Viewer } | { ok: false; reason: RefusalReason };

/** How the view authenticates. */
export interface AccessSettings {
  auth: AuthSettings;
  /** Demo only: no token needed, everything visible. */
  anonymous: boolean;
}

const EVERYONE: Viewer = {
  subject: 'anonymous',
  sees: () => true,
  scopeKey: '*',
  seesNothing: false,
};

/** The viewer of a request with `headers`. */
export async function viewerOf(
  headers: IncomingHttpHeaders,
  settings: AccessSettings,
): Promise<ViewerCheck> {
  // Anonymous read covers requests without credentials only: one that sends any is checked.
  if (settings.anonymous && headers.authorization === undefined)
    return { ok: true, viewer: EVERYONE };
  const checked = await authenticateBearer(headers, settings.auth);
  if (!checked.ok) return { ok: false, reason: checked.reason };
  return { ok: true, viewer: viewerFor(checked.value) };
}

/** The viewer an authenticated identity is. */
export function viewerFor(identity: Identity): Viewer {
  const patterns = identity.scopes.pipelines;
  const all = patterns.includes('*');
  return {
    subject: identity.subject,
    sees: all
      ? () => true
      : (id) => {
          const { namespace, name } = pipelineRef(id);
          return coversPipeline(identity, namespace, name);
        },
    scopeKey: all ? '*' : [...patterns].sort().join('\n'),
    seesNothing: patterns.length === 0,
  };
}
