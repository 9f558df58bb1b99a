/**
 * The forge credentials a Pipeline's pull-request spec points at: a Secret in the Pipeline's own
 * namespace on the management cluster, read when a promotion runs (never cached: a rotated token
 * takes effect on the next attempt). Messages name the Secret, never its contents.
 */
import type { SecretKeyReader } from '../auth/legacy-keys.js';
import type { ForgeFailure } from './forge-answers.js';
import type { ForgeCredentials } from './forge-model.js';

/** The Secret's `token` (required) and optional `username`/`password` for Git over HTTPS. */
export async function readCredentials(
  readSecret: SecretKeyReader,
  namespace: string,
  secret: string,
): Promise<ForgeCredentials | ForgeFailure> {
  try {
    const [token, username, password] = await Promise.all(
      ['token', 'username', 'password'].map((key) => readSecret(namespace, secret, key)),
    );
    if (token === undefined || token.length === 0) {
      return {
        reason: 'CredentialsNotFound',
        message: `Secret ${namespace}/${secret} has no key "token" (or does not exist)`,
        // Someone may be creating it right now; the retry policy bounds the attempts.
        retryable: true,
      };
    }
    return {
      token: token.toString('utf8').trim(),
      ...(username === undefined || password === undefined
        ? {}
        : { username: username.toString('utf8'), password: password.toString('utf8') }),
    };
  } catch {
    return {
      reason: 'CredentialsUnreadable',
      message: `Secret ${namespace}/${secret} could not be read from the management cluster`,
      retryable: true,
    };
  }
}
