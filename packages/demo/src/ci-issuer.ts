/**
 * The demo's stand-in for a CI provider's OIDC issuer (GitHub Actions' shape): a JWKS served
 * on loopback that the gateway's `ci.issuers` entry points to, and tokens minted with its key,
 * so `demo promote` shows a CI-triggered promotion without any real CI.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, exportPKCS8, generateKeyPair, importPKCS8 } from 'jose';

/** The issuer as the gateway's configuration and the state file need it. */
export interface DemoIssuer {
  issuer: string;
  audience: string;
  jwksUrl: string;
  privateKeyPem: string;
  close(): Promise<void>;
}

/** The repository and workflow the demo's tokens claim, and the policy that allows them. */
export const DEMO_CI = {
  policy: 'demo-e2e',
  repository: 'example/podinfo-deploy',
  workflowRef: 'example/podinfo-deploy/.github/workflows/e2e.yml@refs/heads/main',
} as const;

/** Starts the JWKS endpoint on 127.0.0.1 (ephemeral port) with a fresh RS256 key. */
export async function startIssuer(): Promise<DemoIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'demo', alg: 'RS256', use: 'sig' };
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    issuer: 'https://token.actions.example.invalid',
    audience: 'promotion-gateway',
    jwksUrl: `http://127.0.0.1:${String(port)}/jwks`,
    privateKeyPem: await exportPKCS8(privateKey),
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A GitHub-Actions-shaped token from the demo issuer, valid for five minutes. */
export async function mintCiToken(ci: {
  issuer: string;
  audience: string;
  privateKeyPem: string;
  repository: string;
}): Promise<string> {
  const key = await importPKCS8(ci.privateKeyPem, 'RS256');
  return new SignJWT({
    repository: ci.repository,
    ref: 'refs/heads/main',
    workflow_ref: DEMO_CI.workflowRef,
    environment: 'prod',
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'demo', typ: 'JWT' })
    .setIssuer(ci.issuer)
    .setAudience(ci.audience)
    .setSubject(`repo:${ci.repository}:environment:prod`)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}
