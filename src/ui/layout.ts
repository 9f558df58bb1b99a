/**
 * The page shell every page of the view shares (one stylesheet, one module script, the live
 * indicator), and the error pages, which say what to do rather than only what failed. Pure.
 */
import { html, type HtmlValue, type SafeHtml } from './html.js';
import type { UiAsset } from './assets.js';

/** What a page puts in the shell. */
export interface PageParts {
  title: string;
  /** The page's module script (none for error pages). */
  script?: UiAsset;
  body: HtmlValue;
  /** The asset URLs (with their version), from assets.ts. */
  assetUrl: (asset: UiAsset) => string;
}

/** The whole document. */
export function page(parts: PageParts): SafeHtml {
  const script = parts.script;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${parts.title} · promotion-gateway</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${parts.assetUrl('ui.css')}" />
        ${script === undefined ? '' : html`<script type="module" src="${parts.assetUrl(script)}"></script>`}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/">promotion-gateway</a>
          ${
            script === undefined
              ? ''
              : html`<span
                  class="live"
                  data-testid="live"
                  data-state="reconnecting"
                  role="status"
                  aria-live="polite"
                  >connecting</span
                >`
          }
        </header>
        ${parts.body}
      </body>
    </html> `;
}

/** What an error page says, by HTTP status. */
export interface ErrorCopy {
  title: string;
  /** What happened, in one sentence. */
  what: string;
  /** What the reader can do about it. */
  todo: string;
}

const COPY: Readonly<Record<number, ErrorCopy>> = {
  400: {
    title: 'Bad request',
    what: 'The address or the request could not be read.',
    todo: 'Go back to the fleet and follow a link from there.',
  },
  401: {
    title: 'Sign-in needed',
    what: 'This view shows Pipelines only to people it can identify, and this request carried no valid identity token.',
    todo: 'Open the view through your organisation’s sign-in proxy (it passes your token as Authorization: Bearer). If you did, your session may have expired: sign in again.',
  },
  403: {
    title: 'No Pipelines for you here',
    what: 'You are signed in, but your token names no Pipeline you may see.',
    todo: 'Ask the gateway’s operators to add the Pipelines you work on (namespace/name, namespace/* or *) to the pipelines claim of your identity token.',
  },
  404: {
    title: 'Not found',
    what: 'There is no such page, or no such Pipeline you may see.',
    todo: 'Check the namespace and name, or find the Pipeline in the fleet.',
  },
  405: {
    title: 'Read-only',
    what: 'This view only reads.',
    todo: 'Approvals and halts go through the gateway’s API or the promotion-gateway CLI.',
  },
  429: {
    title: 'Too many requests',
    what: 'This replica is answering too many requests or live streams right now.',
    todo: 'Wait a moment and reload; the live updates reconnect by themselves.',
  },
  503: {
    title: 'Try again shortly',
    what: 'The view could not answer now: a Kubernetes API server it needs cannot be reached.',
    todo: 'Reload in a few seconds; if it persists, the gateway’s log says which.',
  },
};

const FALLBACK: ErrorCopy = {
  title: 'Something went wrong',
  what: 'The view could not answer this request.',
  todo: 'Reload in a moment; if it persists, the gateway’s log says why.',
};

/** The words for an error page of `status`. */
export function errorCopy(status: number): ErrorCopy {
  return COPY[status] ?? FALLBACK;
}

/** An error page: what happened and what to do, with the registry's code for operators. */
export function errorPage(
  status: number,
  code: string,
  assetUrl: (asset: UiAsset) => string,
): SafeHtml {
  const copy = errorCopy(status);
  return page({
    title: copy.title,
    assetUrl,
    body: html`<main id="main" class="error" data-testid="error" data-status="${status}">
      <h1>${copy.title}</h1>
      <p>${copy.what}</p>
      <p>${copy.todo}</p>
      <p class="muted">HTTP ${status} · ${code}</p>
      <p><a href="/">Back to the fleet</a></p>
    </main>`,
  });
}
