/**
 * Reads of a gateway's read API with a bearer token whose `pipelines` claim covers what is read:
 * the preview of an environment's pending promotion
 * (`GET /v1/pipelines/{namespace}/{name}/environments/{env}/preview`, for `diff` and `approvals
 * sign`) and a release train (`GET /v1/trains/{namespace}/{name}`, for `approvals sign --train`).
 */
import type { Preview } from '../preview/previewer.js';
import { redactUrls } from '../text/redact-url.js';
import { clip } from '../text/text.js';
import { UsageError, type CommandIo } from './args.js';

/** Where the gateway is and the read token, from the flags or the environment. */
export interface GatewayAccess {
  url: string;
  token: string;
}

/** `--gateway` (else $PROMOTION_GATEWAY_URL) and `--token` (else $PROMOTION_GATEWAY_TOKEN). */
export function gatewayAccess(
  values: { gateway?: string | undefined; token?: string | undefined },
  env: CommandIo['env'],
  fallbackUrl?: string,
): GatewayAccess {
  const url = values.gateway ?? env.PROMOTION_GATEWAY_URL ?? fallbackUrl;
  if (url === undefined || url === '')
    throw new UsageError('the gateway is needed: --gateway URL or $PROMOTION_GATEWAY_URL');
  const token = values.token ?? env.PROMOTION_GATEWAY_TOKEN;
  if (token === undefined || token === '')
    throw new UsageError('a read token is needed: --token TOKEN or $PROMOTION_GATEWAY_TOKEN');
  return { url: url.replace(/\/$/, ''), token };
}

/** Thrown when the gateway answers without a preview; the message is safe to print. */
export class PreviewError extends Error {
  override readonly name = 'PreviewError';
}

/** The preview of `env` of `pipeline` (`namespace/name`), or a PreviewError saying why not. */
export async function fetchPreview(
  access: GatewayAccess,
  pipeline: string,
  env: string,
): Promise<Preview> {
  const path = `/v1/pipelines/${pipeline}/environments/${encodeURIComponent(env)}/preview`;
  return (await readGateway(access, path)) as Preview;
}

/** The JSON answer of a GET of `path` on the gateway, or a PreviewError saying why there is none. */
export async function readGateway(access: GatewayAccess, path: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${access.url}${path}`, {
      headers: { authorization: `Bearer ${access.token}` },
    });
  } catch {
    throw new PreviewError(`the gateway at ${redactUrls(access.url)} could not be reached`);
  }
  const text = await response.text();
  if (response.status !== 200)
    throw new PreviewError(`the gateway answered ${String(response.status)}: ${messageOf(text)}`);
  return JSON.parse(text) as unknown;
}

/** An error body's message, made safe to print. */
function messageOf(text: string): string {
  try {
    return clip((JSON.parse(text) as { message?: unknown } | null)?.message, 256);
  } catch {
    return '(no message)';
  }
}
