/**
 * Credentials for the authorization doors in tests: approvers with their own key pairs and
 * signed statements, and a local OIDC issuer (a real JWKS endpoint on loopback) that mints
 * tokens shaped like GitHub Actions', GitLab CI's or an SSO provider's.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  exportSPKI,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWTPayload,
} from 'jose';
import { signStatement, type StatementClaims } from '../../src/auth/statement.js';
import {
  membersDigest,
  signTrainStatement,
  type TrainStatementClaims,
} from '../../src/auth/train-statement.js';

/** An approver: name, key pair, and the config entry the gateway needs for them. */
export interface TestApprover {
  name: string;
  privateKey: CryptoKey;
  publicKeyPem: string;
  groups: string[];
}

/** A fresh Ed25519 approver. */
export async function approver(name: string, groups: string[] = []): Promise<TestApprover> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true });
  return { name, privateKey, publicKeyPem: await exportSPKI(publicKey), groups };
}

/** The `approvals.approvers` entries for `approvers`. */
export function approverConfig(approvers: readonly TestApprover[]) {
  return approvers.map((a) => ({
    name: a.name,
    publicKeys: [{ value: a.publicKeyPem }],
    groups: a.groups,
  }));
}

/** A statement by `who`, valid for five minutes from now unless `claims` says otherwise. */
export function statement(
  who: TestApprover,
  claims: Partial<StatementClaims> & Pick<StatementClaims, 'pipeline' | 'environment' | 'revision'>,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signStatement(
    { sub: who.name, decision: 'approve', iat: now, exp: now + 300, jti: randomUUID(), ...claims },
    who.privateKey,
    'EdDSA',
  );
}

/**
 * A train approval statement by `who` of the combination `members` (its digest computed unless
 * `claims` gives another), valid for five minutes from now.
 */
export function trainStatement(
  who: TestApprover,
  claims: Partial<TrainStatementClaims> &
    Pick<TrainStatementClaims, 'train' | 'environment' | 'members'>,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signTrainStatement(
    {
      sub: who.name,
      decision: 'approve',
      combinationDigest: membersDigest(claims.members),
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
      ...claims,
    },
    who.privateKey,
    'EdDSA',
  );
}

/** POSTs a signed train approval statement to the door of train `ns/name` `env`. */
export function postTrainStatement(
  url: string,
  train: string,
  env: string,
  jws: string,
): Promise<Response> {
  return fetch(`${url}/v1/trains/${train}/environments/${env}/approvals`, {
    method: 'POST',
    headers: { 'content-type': 'application/jose' },
    body: jws,
  });
}

/** A local OIDC issuer: its JWKS is served on loopback, its tokens signed with RS256. */
export interface TestIssuer {
  issuer: string;
  jwksUrl: string;
  /** JWKS GETs served (to show caching and unknown-kid refreshes). */
  jwksFetches(): number;
  /** A token with `claims`, plus iat/exp (10 minutes)/jti/iss unless given. */
  token(
    claims: JWTPayload,
    options?: { audience?: string; key?: 'own' | 'other' },
  ): Promise<string>;
  close(): Promise<void>;
}

/** Starts an issuer named `issuer` (the `iss` of its tokens). */
export async function startIssuer(issuer: string): Promise<TestIssuer> {
  const own = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(own.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const server: Server = createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    issuer,
    jwksUrl: `http://127.0.0.1:${port}/jwks`,
    jwksFetches: () => fetches,
    token: (claims, options = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'JWT' })
        .setIssuer(issuer)
        .setAudience(options.audience ?? 'promotion-gateway')
        .setIssuedAt(typeof claims.iat === 'number' ? claims.iat : now)
        .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : now + 600)
        .sign(options.key === 'other' ? other.privateKey : own.privateKey);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** POSTs a signed statement to the approvals door of `ns/podinfo` `env`. */
export function postStatement(
  url: string,
  ns: string,
  env: string,
  jws: string,
): Promise<Response> {
  return fetch(`${url}/v1/pipelines/${ns}/podinfo/environments/${env}/approvals`, {
    method: 'POST',
    headers: { 'content-type': 'application/jose' },
    body: jws,
  });
}

/** POSTs a CI-triggered promotion of `revision` with `token`. */
export function postPromotion(
  url: string,
  ns: string,
  env: string,
  token: string,
  revision: string,
): Promise<Response> {
  return fetch(`${url}/v1/pipelines/${ns}/podinfo/environments/${env}/promotions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ revision }),
  });
}
