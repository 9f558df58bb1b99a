/**
 * The events a body template is tried on when it is loaded: one of every type with every
 * optional field, one with none, and text full of what breaks JSON, HTML and URLs, so that a
 * JSON template that would not render valid JSON for some event is refused at load rather than
 * sent to a receiver.
 */
import {
  NOTIFICATION_TYPES,
  type NotificationEvent,
  type NotificationType,
} from './notification-event.js';

// Quotes, a backslash, a line break, markup, an ampersand, a non-BMP character, a separator.
const AWKWARD = `"quoted" \\ back\nslash </script> & 'single' 🚀 \u2028`;

/** The sample events, in NOTIFICATION_TYPES order, then the bare one. */
export function templateSamples(): NotificationEvent[] {
  return [...NOTIFICATION_TYPES.map(fullSample), bareSample()];
}

function fullSample(type: NotificationType): NotificationEvent {
  return {
    id: 'evt_AAAAAAAAAAAAAAAAAAAAAA',
    type,
    time: '2026-01-02T03:04:05.678Z',
    pipeline: { namespace: 'team-a', name: 'podinfo' },
    environment: 'staging',
    revision: `main@sha1:0123456789abcdef ${AWKWARD}`,
    reason: type,
    message: `A sentence ${AWKWARD}`,
    severity: type === 'PromotionFailed' ? 'error' : 'info',
    targets: [
      {
        cluster: 'staging-eu',
        namespace: 'podinfo',
        name: 'podinfo',
        kind: 'HelmRelease',
        ready: true,
        revision: `1.2.3 ${AWKWARD}`,
      },
      { cluster: 'staging-us', namespace: 'podinfo', name: 'podinfo', kind: 'Kustomization' },
    ],
    attempt: 2,
    principal: `alice ${AWKWARD}`,
    decision: 'approve',
    preview: {
      digest: `sha256:${'0'.repeat(64)}`,
      summary: `staging: 1.2.2 -> 1.2.3 by pull request on main (2 files) ${AWKWARD}`,
      url: `https://promotions.example.com/pipelines/team-a/podinfo/environments/staging/preview?${AWKWARD}`,
    },
  };
}

function bareSample(): NotificationEvent {
  return {
    id: 'evt_BBBBBBBBBBBBBBBBBBBBBB',
    type: 'EventsMissing',
    time: '2026-01-02T03:04:05.678Z',
    pipeline: { namespace: 'team-a', name: 'podinfo' },
    environment: 'prod',
    revision: '',
    reason: 'EventsMissing',
    message: '',
    severity: 'error',
    targets: [],
  };
}
