/**
 * The body of a Flux event (notification-controller's generic webhook), as ingress accepts it.
 */
import { Type } from 'typebox';
import { MapOf, StringEnum } from './kit.js';

/** Flux event `involvedObject`. */
export const InvolvedObjectSchema = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 63 }),
    name: Type.String({ minLength: 1, maxLength: 253 }),
    namespace: Type.String({ minLength: 1, maxLength: 63 }),
    apiVersion: Type.Optional(Type.String({ maxLength: 317 })),
    uid: Type.Optional(Type.String({ maxLength: 128 })),
    resourceVersion: Type.Optional(Type.String({ maxLength: 128 })),
    fieldPath: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  {
    description: 'The object the event is about (corev1.ObjectReference).',
    additionalProperties: true,
  },
);

/** Flux event `(the document)`. */
export const FluxEventSchema = Type.Object(
  {
    involvedObject: InvolvedObjectSchema,
    severity: Type.Optional(StringEnum(['info', 'error', 'trace'])),
    timestamp: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
    message: Type.Optional(Type.String({ maxLength: 65536 })),
    reason: Type.Optional(Type.String({ maxLength: 1024 })),
    metadata: Type.Optional(
      MapOf(Type.String({ maxLength: 4096 }), {
        maxProperties: 64,
        propertyNames: { maxLength: 317 },
      }),
    ),
    reportingController: Type.Optional(Type.String({ maxLength: 253 })),
    reportingInstance: Type.Optional(Type.String({ maxLength: 253 })),
  },
  {
    description:
      'The body a Flux Provider of type generic or generic-hmac POSTs (eventv1.Event). Unknown top-level properties are allowed because Flux may add fields; every string and map is bounded.',
    additionalProperties: true,
  },
);
