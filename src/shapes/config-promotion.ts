/**
 * How the gateway promotes and what it calls out to, as the configuration file declares it:
 * retries, pull requests, webhooks, external checks, notifications.
 */
import { Type } from 'typebox';
import { MapOf, Ref } from './kit.js';
import { PromotionWindowInputSchema, SecretSourceSchema } from './config-common.js';

/** Configuration `definitions.webhookEndpoint`. */
export const WebhookInputSchema = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://' }),
    secret: Type.Optional(Ref<typeof SecretSourceSchema>('secretSource')),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 600000, default: 5000 })),
  },
  { additionalProperties: false },
);

/** Configuration `promotion.retry`. */
export const RetryInputSchema = Type.Object(
  {
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 3 })),
    backoffBaseMs: Type.Optional(Type.Integer({ minimum: 0, default: 30000 })),
    backoffMaxMs: Type.Optional(Type.Integer({ minimum: 0, default: 600000 })),
    claimTimeoutMs: Type.Optional(
      Type.Integer({
        description:
          "How long a Claimed record written without a deadlineTime (by an older gateway, or weave's pipeline-controller) holds its environment; the gateway's own claims carry their attempt's deadline instead.",
        minimum: 1,
        default: 900000,
      }),
    ),
  },
  {
    description: 'Explicit, bounded retry policy for failed or abandoned attempts.',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `promotion.pullRequest.author`. */
export const PullRequestAuthorInputSchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, default: 'promotion-gateway' }),
    ),
    email: Type.Optional(
      Type.String({ minLength: 3, maxLength: 256, default: 'promotion-gateway@noreply.invalid' }),
    ),
  },
  {
    description: 'Author and committer of promotion commits.',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `promotion.pullRequest`. */
export const PullRequestInputSchema = Type.Object(
  {
    author: Type.Optional(PullRequestAuthorInputSchema),
    commitMessage: Type.Optional(
      Type.String({
        description:
          'Message of promotion commits; {namespace}, {pipeline}, {environment} and {revision} are replaced.',
        minLength: 1,
        maxLength: 1024,
        default: 'Promote {namespace}/{pipeline} in {environment} to {revision}',
      }),
    ),
    allowedHosts: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 262 }), {
        description:
          "Hosts (`host` or `host:port`) a Pipeline may name in its pull-request `url`; empty allows any. Set it: the gateway sends the Pipeline's token to that host.",
        default: [],
      }),
    ),
    allowPlainHttp: Type.Optional(
      Type.Boolean({
        description:
          'Accept `http://` repository URLs (a loopback test forge); never in production.',
        default: false,
      }),
    ),
    gitTimeoutMs: Type.Optional(
      Type.Integer({
        description: 'Bound on each Git request (fetch, push).',
        minimum: 1000,
        default: 60000,
      }),
    ),
    apiTimeoutMs: Type.Optional(
      Type.Integer({
        description: 'Bound on each forge API request.',
        minimum: 100,
        default: 15000,
      }),
    ),
    attemptTimeoutMs: Type.Optional(
      Type.Integer({
        description:
          "Bound on one whole pull-request attempt, every Git and forge request of it: the attempt is stopped then, and its claim's deadline is set from it.",
        minimum: 1000,
        maximum: 3600000,
        default: 300000,
      }),
    ),
    refreshIntervalMs: Type.Optional(
      Type.Integer({
        description:
          "An open pull request's state (open, merged, closed) is read again at most this often.",
        minimum: 0,
        default: 60000,
      }),
    ),
  },
  {
    description:
      "Settings of the `pull-request` promotion strategy (the forge, the repository and the token's Secret come from each Pipeline).",
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `promotion`. */
export const PromotionInputSchema = Type.Object(
  {
    retry: Type.Optional(RetryInputSchema),
    webhooks: Type.Optional(
      MapOf(Ref<typeof WebhookInputSchema>('webhookEndpoint'), {
        description: 'Named endpoints for the `webhook` promotion strategy.',
        propertyNames: { $ref: '#/definitions/dnsLabel' },
        default: {},
      }),
    ),
    pullRequest: Type.Optional(PullRequestInputSchema),
    instanceId: Type.Optional(
      Type.String({
        description: "This replica's name in promotion claims; default hostname-pid.",
        minLength: 1,
        maxLength: 253,
      }),
    ),
    windows: Type.Optional(
      Type.Array(Ref<typeof PromotionWindowInputSchema>('promotionWindow'), {
        description:
          "Fleet-wide promotion windows (docs/policy.md, Promotion windows), each for the environments it names or for all; a Pipeline's own windows add to these, never widen them.",
        maxItems: 64,
        default: [],
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);

/** Configuration `checks.http`. */
export const HttpChecksInputSchema = Type.Object(
  {
    allowedUrlPrefixes: Type.Optional(
      Type.Array(Type.String({ maxLength: 2048, pattern: '^https?://[^/?#@\\s]+(/[^?#\\s]*)?$' }), {
        description:
          "URL prefixes (scheme, host and port, path) an HTTP check may call, e.g. https://ci.example.com/api/; empty, the default, disables HTTP checks. Whatever they admit, loopback, link-local, cloud metadata, private, shared and unspecified addresses and the clusters' API servers are refused (on every address a name resolves to) unless an entry writes that address itself as an IP literal.",
        maxItems: 256,
        default: [],
      }),
    ),
  },
  {
    description:
      'HTTP checks: the gateway calls URLs that Pipelines name, from inside the cluster.',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `checks`. */
export const ChecksInputSchema = Type.Object(
  {
    maxConcurrent: Type.Optional(
      Type.Integer({
        description: 'Check reads in flight at most, over every check of every Pipeline.',
        minimum: 1,
        maximum: 256,
        default: 8,
      }),
    ),
    http: Type.Optional(HttpChecksInputSchema),
  },
  {
    description:
      'External checks an environment may require before it takes a revision (docs/policy.md, External checks).',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `notifications`. */
export const NotificationsInputSchema = Type.Object(
  {
    crossNamespace: Type.Optional(
      Type.Union(
        [
          Type.Boolean(),
          Type.Array(
            Type.String({
              minLength: 1,
              maxLength: 63,
              pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
            }),
            { maxItems: 256 },
          ),
        ],
        {
          description:
            'Whether a PromotionAlert may select Pipelines of another namespace (spec.pipelines[].namespace): false, the default, only its own; true, any; a list, only alerts in these namespaces may select any namespace.',
          default: false,
        },
      ),
    ),
    allowedUrlPrefixes: Type.Optional(
      Type.Array(Type.String({ maxLength: 2048, pattern: '^https?://[^/?#@\\s]+(/[^?#\\s]*)?$' }), {
        description:
          "URL prefixes (scheme, host and port, path) a PromotionAlert may deliver to, e.g. https://hooks.slack.com/services/; empty, the default, admits any http(s) address outside the refused classes. Loopback, link-local, cloud metadata, private, shared and unspecified addresses and the clusters' API servers are refused (on every address a name resolves to) unless an entry writes that address itself as an IP literal, e.g. http://10.0.4.7:8080/hooks/.",
        maxItems: 256,
        default: [],
      }),
    ),
    enabled: Type.Optional(
      Type.Boolean({
        description: "Whether the Lease holder delivers PromotionAlerts' events at all.",
        default: true,
      }),
    ),
    intervalMs: Type.Optional(
      Type.Integer({
        description: 'How often the Lease holder looks for events to deliver.',
        minimum: 100,
        maximum: 60000,
        default: 1000,
      }),
    ),
    retryBaseMs: Type.Optional(
      Type.Integer({
        description:
          "The first retry's ceiling; each next one doubles it (with jitter) up to retryMaxMs.",
        minimum: 1,
        default: 1000,
      }),
    ),
    retryMaxMs: Type.Optional(
      Type.Integer({
        description:
          "The longest pause between two attempts (a receiver's Retry-After may ask for more).",
        minimum: 1,
        default: 600000,
      }),
    ),
    horizonMs: Type.Optional(
      Type.Integer({
        description:
          'How long after it happened an event is still tried; then it is dropped and counted.',
        minimum: 1000,
        default: 86400000,
      }),
    ),
    previewWaitMs: Type.Optional(
      Type.Integer({
        description:
          "How long the status write that begins a wait for an approval waits for the change's preview, so that the WaitingForApproval event carries it; past it the wait is recorded and told without one.",
        minimum: 0,
        maximum: 30000,
        default: 3000,
      }),
    ),
  },
  {
    description: 'PromotionAlerts, the subscriptions to promotion events (docs/notifications.md).',
    additionalProperties: false,
    default: {},
  },
);
