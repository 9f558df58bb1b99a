/**
 * The one registry of error codes the gateway answers with. Every HTTP error body is
 * `{ code, message }`; 5xx messages are fixed text so they can never carry internal detail.
 */
export const ErrorCodes = {
  BadRequest: { status: 400, message: 'The request is malformed.' },
  InvalidBody: { status: 400, message: 'The request body does not match its schema.' },
  InvalidJson: { status: 400, message: 'The request body is not valid JSON.' },
  InvalidPolicy: {
    status: 400,
    message: 'The proposed policy has a window or selector that cannot be used.',
  },
  Unauthenticated: { status: 401, message: 'Authentication failed.' },
  Forbidden: { status: 403, message: 'The credential may not act on this resource.' },
  NotFound: { status: 404, message: 'No such resource.' },
  NotWaiting: { status: 409, message: 'The environment is not waiting for that revision.' },
  Replayed: { status: 409, message: 'This credential has been used already.' },
  PreviewChanged: {
    status: 409,
    message:
      'The change the promotion would make is no longer the one previewed; preview it again.',
  },
  CombinationChanged: {
    status: 409,
    message:
      "The train's release into the environment is not the combination approved; look at it again.",
  },
  Contended: {
    status: 409,
    message: 'The Pipeline status kept changing while this was being recorded; retry.',
  },
  RevisionNotRun: {
    status: 409,
    message:
      'The environment has not run that revision healthy; a rollback goes only to one it ran.',
  },
  NoRollbackTarget: {
    status: 409,
    message: 'The environment ran no other revision healthy to roll back to.',
  },
  NotSettled: {
    status: 409,
    message: "The environment's targets do not all run one readable revision now; retry.",
  },
  NotHeld: { status: 404, message: 'The environment holds no such revision.' },
  MethodNotAllowed: { status: 405, message: 'Method not allowed.' },
  RequestTimeout: { status: 408, message: 'The request was not received in time.' },
  PayloadTooLarge: { status: 413, message: 'The request body is too large.' },
  UnsupportedMediaType: { status: 415, message: 'This content type is not accepted here.' },
  RateLimited: { status: 429, message: 'Too many requests; retry later.' },
  Internal: { status: 500, message: 'Internal error.' },
  QueueFull: { status: 503, message: 'The gateway is busy; retry later.' },
  NotReady: { status: 503, message: 'The gateway is not ready.' },
  NotEvaluated: {
    status: 503,
    message: 'The gateway holds this Pipeline but has not evaluated it yet; retry.',
  },
  StatusHeld: {
    status: 503,
    message: 'The gateway cannot record to the Pipeline status now; retry later.',
  },
  Unavailable: {
    status: 503,
    message: 'A Kubernetes API server this request needs cannot be reached; retry later.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

/** One of the registered error codes. */
export type ErrorCode = keyof typeof ErrorCodes;

/** An error that maps to a registered code; `detail` is shown only for 4xx answers. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, detail?: string, options?: { retryAfterSeconds?: number }) {
    super(detail ?? ErrorCodes[code].message);
    this.name = 'GatewayError';
    this.code = code;
    this.status = ErrorCodes[code].status;
    this.detail = detail;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** The JSON body for an error: 5xx always carries the registry's fixed message. */
export function errorBody(code: ErrorCode, detail?: string): { code: ErrorCode; message: string } {
  const entry = ErrorCodes[code];
  const message = entry.status >= 500 || detail === undefined ? entry.message : detail;
  return { code, message };
}
