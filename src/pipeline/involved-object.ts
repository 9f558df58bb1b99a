import type { Pipeline } from './pipeline-resource.js';

/** What a Kubernetes Event names as its subject: the Pipeline, with its uid when known. */
export interface InvolvedPipeline {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

/** The `involvedObject` of an Event about `pipeline` (promotions, approvals). */
export function involvedObjectOf(pipeline: Pipeline): InvolvedPipeline {
  const { metadata, apiVersion, kind } = pipeline;
  return {
    apiVersion,
    kind,
    namespace: metadata.namespace,
    name: metadata.name,
    ...(metadata.uid === undefined ? {} : { uid: metadata.uid }),
  };
}
