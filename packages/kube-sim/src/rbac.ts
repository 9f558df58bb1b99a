/**
 * RBAC as the API server's authorizer evaluates it, over the Roles, ClusterRoles and bindings
 * stored in the cluster at the time of the request: a ClusterRoleBinding grants its role's
 * rules everywhere, a RoleBinding only in its own namespace; rules match on verbs, API groups,
 * resources (`plural`, `plural/sub`, or `*` alone or before `/sub`) and resourceNames. Aggregated ClusterRoles
 * (`aggregationRule`) are not expanded.
 */
import { isRecord, metaString } from './meta.js';
import type { ResourceRequest } from './request-info.js';
import type { SimObject } from './resources.js';
import type { ObjectStore } from './store.js';

const RBAC = 'rbac.authorization.k8s.io';
const ROLES = `roles.${RBAC}`;
const CLUSTER_ROLES = `clusterroles.${RBAC}`;
const BINDINGS = `rolebindings.${RBAC}`;
const CLUSTER_BINDINGS = `clusterrolebindings.${RBAC}`;

/** Who is asking: a user name and its groups (a ServiceAccount's own name for SA subjects). */
export interface RbacSubject {
  user: string;
  groups: readonly string[];
  serviceAccount?: { namespace: string; name: string };
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];

function named(subject: Record<string, unknown>, key: string): string {
  return typeof subject[key] === 'string' ? subject[key] : '';
}

/** Whether a binding (in `bindingNs`, '' for cluster bindings) names the subject. */
function bindsSubject(binding: SimObject, bindingNs: string, who: RbacSubject): boolean {
  const subjects = Array.isArray(binding.subjects) ? binding.subjects.filter(isRecord) : [];
  return subjects.some((s) => {
    const name = named(s, 'name');
    switch (s.kind) {
      case 'ServiceAccount': {
        const ns = named(s, 'namespace') || bindingNs;
        return who.serviceAccount?.name === name && who.serviceAccount.namespace === ns;
      }
      case 'User':
        return who.user === name;
      case 'Group':
        return who.groups.includes(name);
      default:
        return false;
    }
  });
}

/** The rules of a binding's role (a Role in the binding's namespace, or a ClusterRole). */
function rulesOf(store: ObjectStore, binding: SimObject, bindingNs: string): SimObject[] {
  const ref = isRecord(binding.roleRef) ? binding.roleRef : {};
  const name = named(ref, 'name');
  const role =
    ref.kind === 'ClusterRole'
      ? store.get(CLUSTER_ROLES, '', name)
      : ref.kind === 'Role' && bindingNs !== ''
        ? store.get(ROLES, bindingNs, name)
        : undefined;
  return Array.isArray(role?.rules) ? role.rules.filter(isRecord) : [];
}

function resourceMatches(rule: SimObject, req: ResourceRequest): boolean {
  const wanted = req.subresource === '' ? req.resource : `${req.resource}/${req.subresource}`;
  return strings(rule.resources).some(
    (r) => r === '*' || r === wanted || (req.subresource !== '' && r === `*/${req.subresource}`),
  );
}

/** Whether one PolicyRule allows the request. */
export function ruleAllows(rule: SimObject, req: ResourceRequest): boolean {
  const verbs = strings(rule.verbs);
  const groups = strings(rule.apiGroups);
  const names = strings(rule.resourceNames);
  return (
    (verbs.includes('*') || verbs.includes(req.verb)) &&
    (groups.includes('*') || groups.includes(req.group)) &&
    resourceMatches(rule, req) &&
    (names.length === 0 || (req.name !== '' && names.includes(req.name)))
  );
}

/** Whether the stored RBAC objects allow `who` the request. */
export function rbacAllows(store: ObjectStore, who: RbacSubject, req: ResourceRequest): boolean {
  const granted = (binding: SimObject, ns: string): boolean =>
    bindsSubject(binding, ns, who) && rulesOf(store, binding, ns).some((r) => ruleAllows(r, req));
  if (store.list(CLUSTER_BINDINGS, '').some((b) => granted(b, ''))) return true;
  if (req.namespace === '') return false;
  return store.list(BINDINGS, req.namespace).some((b) => granted(b, metaString(b, 'namespace')));
}
