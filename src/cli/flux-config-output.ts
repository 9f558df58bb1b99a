/**
 * Where `flux-config` puts what it made: one multi-document YAML on stdout, or one kustomize
 * folder per cluster; with keys, each cluster's Secret in a file of its own (mode 0600, never
 * listed in the kustomization, so it can stay out of Git) and the gateway's copy of each key
 * as a file named after the cluster, for the Secret the gateway mounts.
 */
import { randomBytes } from 'node:crypto';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Document } from 'yaml';
import {
  clusterObjects,
  commentLines,
  commentText,
  HMAC_SECRET_NAME,
  hmacSecret,
  yamlDocuments,
  type FluxObjectOptions,
} from './flux-config-objects.js';
import type { ClusterPlan } from './flux-config-plan.js';

/** Where the gateway's Deployment (manifests/deploy) mounts the Secret holding its keys. */
export const GATEWAY_KEYS_MOUNT = '/etc/promotion-gateway/keys';
/** The Secret with every cluster's key, one entry per cluster name (docs/operations.md). */
export const GATEWAY_KEYS_SECRET = 'promotion-gateway-hmac-keys';

/** A new HMAC key: 32 random bytes as base64url text, safe in stringData, a file and a shell. */
export function newKey(): string {
  return randomBytes(32).toString('base64url');
}

function clusterTitle(plan: ClusterPlan): string {
  const where =
    plan.gitopsCluster === undefined
      ? 'the management cluster itself'
      : `GitopsCluster ${plan.gitopsCluster.namespace}/${plan.gitopsCluster.name}`;
  return `cluster ${plan.name} (${where})`;
}

const STDOUT_HEADER = `Flux objects sending HelmRelease and Kustomization events to promotion-gateway, written by
\`promotion-gateway flux-config\` from the Pipelines; run it again when they change.
Apply each cluster's part in that cluster. The Secret ${HMAC_SECRET_NAME} (key \`token\`) is
referenced, not written here: give it the bytes of the cluster's hmacKeys entry in the gateway
configuration (docs/operations.md, "4. HMAC keys"), or use --generate-keys -o DIR.
`;

/** Every cluster's objects as one multi-document YAML, each cluster after a comment naming it. */
export function stdoutText(plans: readonly ClusterPlan[], options: FluxObjectOptions): string {
  return plans
    .map((plan, index) => {
      const { providers, alerts } = clusterObjects(plan, options);
      const title = `${clusterTitle(plan)}: apply in that cluster`;
      return yamlDocuments(
        [...providers, ...alerts],
        index === 0 ? `${STDOUT_HEADER}\n${title}` : title,
      );
    })
    .join('');
}

/** A file `writeFolders` writes, by path relative to the output folder. */
export interface WrittenFile {
  path: string;
  secret: boolean;
}

/**
 * The paths a run with keys would write that exist already: a key is never replaced by a new
 * one behind its user's back (the gateway and Flux would stop agreeing until both are updated).
 */
export async function existingKeyFiles(
  dir: string,
  plans: readonly ClusterPlan[],
): Promise<string[]> {
  const paths = plans.flatMap((p) => [secretPath(dir, p.name), gatewayKeyPath(dir, p.name)]);
  const exists = await Promise.all(
    paths.map((path) =>
      access(path).then(
        () => true,
        () => false,
      ),
    ),
  );
  return paths.filter((_, i) => exists[i]);
}

function secretPath(dir: string, cluster: string): string {
  return join(dir, cluster, 'secret.yaml');
}

function gatewayKeyPath(dir: string, cluster: string): string {
  return join(dir, GATEWAY_KEYS_SECRET, cluster);
}

/**
 * Writes DIR/<cluster>/{kustomization,provider,alert}.yaml for each plan and, when `keys` maps
 * clusters to keys, DIR/<cluster>/secret.yaml and DIR/promotion-gateway-hmac-keys/<cluster>
 * (both mode 0600, never over an existing file) and a .gitignore for them if there is none.
 */
export async function writeFolders(
  dir: string,
  plans: readonly ClusterPlan[],
  options: FluxObjectOptions,
  keys?: ReadonlyMap<string, string>,
): Promise<WrittenFile[]> {
  const written: WrittenFile[] = [];
  const put = async (path: string, text: string, secret = false) => {
    await writeFile(join(dir, path), text, secret ? { mode: 0o600, flag: 'wx' } : {});
    written.push({ path, secret });
  };
  for (const plan of plans) {
    await mkdir(join(dir, plan.name), { recursive: true });
    const { providers, alerts, secretNamespaces } = clusterObjects(plan, options);
    const title = clusterTitle(plan);
    await put(join(plan.name, 'kustomization.yaml'), kustomizationText(title));
    await put(
      join(plan.name, 'provider.yaml'),
      yamlDocuments(providers, `${title}: where its events go`),
    );
    await put(join(plan.name, 'alert.yaml'), yamlDocuments(alerts, `${title}: which events go`));
    const key = keys?.get(plan.name);
    if (key === undefined) continue;
    const secrets = secretNamespaces.map((ns) => hmacSecret(ns, key));
    await put(join(plan.name, 'secret.yaml'), yamlDocuments(secrets, secretComment(title)), true);
  }
  if (keys !== undefined) written.push(...(await writeGatewayKeys(dir, plans, keys)));
  return written;
}

async function writeGatewayKeys(
  dir: string,
  plans: readonly ClusterPlan[],
  keys: ReadonlyMap<string, string>,
): Promise<WrittenFile[]> {
  await mkdir(join(dir, GATEWAY_KEYS_SECRET), { recursive: true, mode: 0o700 });
  const written: WrittenFile[] = [];
  for (const plan of plans) {
    const key = keys.get(plan.name);
    if (key === undefined) continue;
    // The exact bytes, no newline: the gateway reads a key file as it is (docs/configuration.md).
    await writeFile(gatewayKeyPath(dir, plan.name), key, { mode: 0o600, flag: 'wx' });
    written.push({ path: join(GATEWAY_KEYS_SECRET, plan.name), secret: true });
  }
  const ignore = `# Written by promotion-gateway flux-config: the HMAC keys stay out of Git.\n*/secret.yaml\n${GATEWAY_KEYS_SECRET}/\n`;
  // An existing .gitignore is the user's: left as it is.
  await writeFile(join(dir, '.gitignore'), ignore, { flag: 'wx' }).then(
    () => written.push({ path: '.gitignore', secret: false }),
    () => undefined,
  );
  return written;
}

function kustomizationText(title: string): string {
  const doc = new Document({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: ['provider.yaml', 'alert.yaml'],
  });
  doc.commentBefore = commentText(
    `${title}, written by \`promotion-gateway flux-config\`:
\`kubectl apply -k\` this folder in that cluster, or let Flux apply it. secret.yaml (the
cluster's HMAC key) is deliberately not listed: apply it by hand first, or encrypt it with
SOPS and list it here.`,
  );
  return doc.toString({ singleQuote: true });
}

function secretComment(title: string): string {
  return `SECRET: the HMAC key of ${title}.
Do not commit it in clear: keep it out of Git (flux-config wrote a .gitignore for it in the
output folder, unless there was one) or encrypt it, e.g.
  sops --encrypt --encrypted-regex '^(data|stringData)$' --in-place secret.yaml
Apply it in that cluster before the Provider: kubectl apply -f secret.yaml`;
}

/**
 * The gateway configuration's `clusters` entries for `plans` (YAML, after a comment saying
 * where the keys come from): each cluster with its GitopsCluster and its key read from the file
 * the gateway's key Secret mounts, never the key itself.
 */
export function gatewayEntriesText(
  plans: readonly ClusterPlan[],
  from: { keysDir?: string; configFile?: string } = {},
): string {
  const clusters = plans.map((plan) => ({
    name: plan.name,
    ...(plan.gitopsCluster === undefined ? {} : { gitopsCluster: { ...plan.gitopsCluster } }),
    hmacKeys: [{ file: `${GATEWAY_KEYS_MOUNT}/${plan.name}` }],
  }));
  const source =
    from.keysDir === undefined
      ? `Give each the same bytes as the \`token\` of that cluster's ${HMAC_SECRET_NAME}
Secret (docs/operations.md, "4. HMAC keys").`
      : `Make that Secret from the key files written:
  kubectl -n promotion-system create secret generic ${GATEWAY_KEYS_SECRET} \\
    --from-file=${from.keysDir}/ --dry-run=client -o yaml | kubectl apply -f -`;
  const header = `promotion-gateway configuration (docs/configuration.md): \`clusters\` entries for
the clusters written. Each key is read from a file of the Secret ${GATEWAY_KEYS_SECRET},
which manifests/deploy mounts at ${GATEWAY_KEYS_MOUNT}.
${source}
${configStatus(plans, from.configFile)}`;
  return `${commentLines(header)}\n${new Document({ clusters }).toString({ singleQuote: true })}`;
}

function configStatus(plans: readonly ClusterPlan[], configFile: string | undefined): string {
  if (configFile === undefined)
    return 'No --config given: the names are proposed; add every entry.';
  const missing = plans.filter((p) => !p.configured).map((p) => p.name);
  return missing.length === 0
    ? `${configFile} names every one of them already (check their hmacKeys).`
    : `Not in ${configFile} yet: ${missing.join(', ')}.`;
}
