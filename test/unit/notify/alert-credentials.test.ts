/**
 * An alert's credentials from its Secret: each key decoded (whsec_ as Standard Webhooks reads
 * it, ed25519 PKCS#8 only, an http(s) address, a map of headers), problems naming the Secret
 * and key but never a value, everything printing as "[secret]", and one GET per Secret at most
 * every maxAgeMs, its keys decoded again only when its resourceVersion moved.
 */
import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ReadResult, SecretObject, SecretReader } from '../../../src/kube/ports.js';
import {
  AlertCredentialsReader,
  parseAlertSecret,
  type CredentialsResult,
} from '../../../src/notify/alert-credentials.js';
import { webhookSignatures } from '../../../src/outbound/webhook-signing.js';

const KEY_BYTES = Buffer.from('0123456789abcdef0123456789abcdef');
const WHSEC = `whsec_${KEY_BYTES.toString('base64')}`;
const ED25519_PEM = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const RSA_PEM = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const SLACK = 'https://hooks.slack.example/services/T0/B0/s3cr3t';

const bytes = (text: string) => Buffer.from(text, 'utf8');

function problemOf(result: CredentialsResult): string {
  if (result.ok) throw new Error('expected a problem');
  expect(result.reason).toBe('InvalidSecret');
  return result.problem;
}

describe('parseAlertSecret', () => {
  it('decodes every key, and reads none that is absent', () => {
    const result = parseAlertSecret('shop/hooks', {
      address: bytes(`${SLACK}\n`),
      signingSecret: bytes(WHSEC),
      signingKey: bytes(ED25519_PEM),
      headers: bytes('Authorization: Bearer t0ken\n'),
      token: bytes('ignored'),
    });
    if (!result.ok) throw new Error(result.problem);
    const { credentials } = result;
    expect(credentials.address).toBe(SLACK);
    expect(credentials.signingSecret?.equals(KEY_BYTES)).toBe(true);
    expect(credentials.signingKey?.asymmetricKeyType).toBe('ed25519');
    expect(credentials.headers).toEqual({ authorization: 'Bearer t0ken' });
    expect(webhookSignatures(credentials, 'evt_1', 1, '{}')).toMatch(/^v1,\S+ v1a,\S+$/);
    expect(parseAlertSecret('shop/empty', {})).toEqual({ ok: true, credentials: {} });
  });

  it('takes a signing secret without the whsec_ prefix as its bytes', () => {
    const result = parseAlertSecret('shop/hooks', { signingSecret: bytes('plain key ') });
    expect(result.ok && result.credentials.signingSecret?.toString()).toBe('plain key ');
  });

  it.each([
    [{ address: bytes('hooks.example.com/x') }, 'address is not an http(s) URL'],
    [{ signingSecret: bytes('') }, 'signingSecret is empty'],
    [{ signingSecret: bytes('whsec_not*base64') }, 'signingSecret starts with "whsec_"'],
    [{ signingKey: bytes(RSA_PEM) }, 'signingKey is not an ed25519 private key'],
    [
      { signingKey: bytes('-----BEGIN PRIVATE KEY-----\ns3cr3t\n') },
      'signingKey is not an ed25519',
    ],
    [{ headers: bytes('Host: evil.example') }, 'headers cannot set "Host"'],
    [{ headers: bytes('Bearer s3cr3t') }, 'headers is not a map'],
  ])('refuses %#, naming the Secret and key, never the value', (data, text) => {
    const problem = problemOf(parseAlertSecret('shop/hooks', data));
    expect(problem.startsWith(`Secret shop/hooks (spec.secretRef): ${text}`)).toBe(true);
    expect(problem).not.toMatch(/s3cr3t|evil|not\*base64|-----|MII/);
  });

  it('prints as [secret] through JSON and inspect, keeping the bytes for crypto', () => {
    const result = parseAlertSecret('shop/hooks', {
      address: bytes(SLACK),
      signingSecret: bytes(WHSEC),
      headers: bytes('Authorization: Bearer t0ken'),
    });
    if (!result.ok) throw new Error(result.problem);
    const logged = [
      JSON.stringify({ result }),
      inspect(result, { depth: 5 }),
      JSON.stringify(result.credentials.headers),
      JSON.stringify(result.credentials.signingSecret),
    ].join('\n');
    expect(logged).not.toMatch(/s3cr3t|t0ken|MDEy|0123/);
    expect(logged).toContain('[secret]');
    expect(Object.keys(result.credentials)).toEqual(['address', 'signingSecret', 'headers']);
  });
});

/** A SecretReader over a map, counting GETs; `set` replaces a Secret with a new version. */
class FakeSecrets implements SecretReader {
  gets = 0;
  failure: string | undefined;
  private version = 1;
  private readonly secrets = new Map<string, SecretObject>();

  set(key: string, data: Record<string, string>): void {
    const decoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, bytes(v)]));
    this.secrets.set(key, { resourceVersion: String(this.version++), data: decoded });
  }

  delete(key: string): void {
    this.secrets.delete(key);
  }

  get(namespace: string, name: string): Promise<ReadResult<SecretObject | undefined>> {
    this.gets++;
    if (this.failure !== undefined) {
      return Promise.resolve({ ok: false, reason: 'Forbidden', message: this.failure });
    }
    return Promise.resolve({ ok: true, value: this.secrets.get(`${namespace}/${name}`) });
  }
}

const alert = (secretName?: string) => ({
  metadata: { namespace: 'shop' },
  spec: secretName === undefined ? {} : { secretRef: { name: secretName } },
});

describe('AlertCredentialsReader', () => {
  function rig() {
    const secrets = new FakeSecrets();
    let now = 0;
    const reader = new AlertCredentialsReader(secrets, { now: () => now, maxAgeMs: 10_000 });
    return { secrets, reader, advance: (ms: number) => (now += ms) };
  }

  it('reads nothing for an alert without secretRef', async () => {
    const { secrets, reader } = rig();
    expect(await reader.readAlertCredentials(alert())).toEqual({ ok: true, credentials: {} });
    expect(secrets.gets).toBe(0);
  });

  it('GETs a Secret at most once per maxAgeMs, and decodes it again only when it changed', async () => {
    const { secrets, reader, advance } = rig();
    secrets.set('shop/hooks', { address: 'https://a.example/' });
    const first = await reader.readAlertCredentials(alert('hooks'));
    expect(await reader.readAlertCredentials(alert('hooks'))).toBe(first);
    expect(secrets.gets).toBe(1);
    advance(10_000);
    expect(await reader.readAlertCredentials(alert('hooks'))).toBe(first);
    expect(secrets.gets).toBe(2);
    secrets.set('shop/hooks', { address: 'https://b.example/' });
    expect(await reader.readAlertCredentials(alert('hooks'))).toBe(first);
    advance(10_000);
    const rotated = await reader.readAlertCredentials(alert('hooks'));
    expect(rotated).toMatchObject({ ok: true, credentials: { address: 'https://b.example/' } });
    expect(secrets.gets).toBe(3);
  });

  it('says a Secret is missing or unreadable, then finds it once it exists', async () => {
    const { secrets, reader, advance } = rig();
    expect(await reader.readAlertCredentials(alert('hooks'))).toEqual({
      ok: false,
      reason: 'SecretNotFound',
      problem: 'Secret shop/hooks (spec.secretRef) does not exist',
    });
    secrets.set('shop/hooks', { signingSecret: WHSEC });
    expect(await reader.readAlertCredentials(alert('hooks'))).toMatchObject({ ok: true });
    advance(10_000);
    secrets.failure = 'secrets "hooks" is forbidden';
    expect(await reader.readAlertCredentials(alert('hooks'))).toEqual({
      ok: false,
      reason: 'ReadFailed',
      problem: 'Secret shop/hooks (spec.secretRef) cannot be read: secrets "hooks" is forbidden',
    });
  });
});
