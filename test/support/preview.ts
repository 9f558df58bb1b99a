/**
 * The preview endpoint in tests: a JWT issuer the gateway trusts for its read API, GETs of an
 * environment's preview, and the unified diff as forge-sim's pull-request page shows it (`git
 * diff base...head`), reduced to what jsdiff and Git print alike.
 */
import { SignJWT, exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import type { ConfigInput } from '../../src/config/input.js';
import type { Preview } from '../../src/preview/previewer.js';

const ISSUER = 'https://issuer.preview.test';
const AUDIENCE = 'promotion-gateway';

/** Signs read-API tokens with a key of its own; `config` is the gateway's `jwt` section. */
export interface ReadTokens {
  config: NonNullable<ConfigInput['jwt']>;
  token(pipelines: string[]): Promise<string>;
}

/** A fresh RS256 key for the gateway's read API. */
export async function readTokens(): Promise<ReadTokens> {
  const pair = await generateKeyPair('RS256');
  const key: CryptoKey = pair.privateKey;
  const config = {
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['RS256' as const],
    publicKeys: [{ value: await exportSPKI(pair.publicKey) }],
  };
  const token = (pipelines: string[]) =>
    new SignJWT({ sub: 'viewer', pipelines })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
  return { config, token };
}

/** GET of `env`'s preview of ns/podinfo, with `token` when given. */
export function getPreview(url: string, ns: string, env: string, token?: string) {
  return fetch(`${url}/v1/pipelines/${ns}/podinfo/environments/${env}/preview`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

/** The preview of `env` once the gateway answers 200 with one. */
export async function previewOf(url: string, ns: string, env: string, token: string) {
  const res = await getPreview(url, ns, env, token);
  if (res.status !== 200) throw new Error(`preview answered ${String(res.status)}`);
  return (await res.json()) as Preview;
}

function unescapeHtml(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replaceAll('&amp;', '&');
}

/** The diff shown on a forge-sim pull-request page at `pageUrl`. */
export async function pageDiff(pageUrl: string): Promise<string> {
  const html = await (await fetch(pageUrl)).text();
  const match = /<pre data-testid="pr-diff">([\s\S]*?)<\/pre>/.exec(html);
  if (match?.[1] === undefined) throw new Error('no diff on the page');
  return unescapeHtml(match[1]);
}

/**
 * Per file, its hunks as both tools print them: `@@ -a,b +c,d @@` (Git leaves out a count of
 * 1 and adds the enclosing line; jsdiff does neither) and the context, removed and added lines.
 */
export function hunksByFile(diff: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let lines: string[] | undefined;
  for (const line of diff.split('\n')) {
    const file = /^\+\+\+ b\/(.+)$/.exec(line);
    if (file?.[1] !== undefined) {
      lines = out[file[1]] = [];
      continue;
    }
    if (lines === undefined || line.startsWith('--- ') || line.startsWith('diff --git')) continue;
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk !== null) {
      const [, a, b = '1', c, d = '1'] = hunk;
      lines.push(`@@ -${a ?? ''},${b} +${c ?? ''},${d} @@`);
    } else if (/^[ +-\\]/.test(line)) lines.push(line);
  }
  return out;
}
