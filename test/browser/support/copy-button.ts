/**
 * Clicks a copy button and waits for what it tells: the texts the button takes are recorded in
 * the page (a MutationObserver set before the click), so a machine slow enough to let the
 * button's 1.5 s "copied" pass between two looks still sees it, and the wait is a hang detector
 * (10 s), not a speed bar.
 */
import { expect } from 'vitest';
import type { Locator } from 'playwright-core';

/** The little of the DOM these page functions use (the tests compile without the DOM's types). */
interface Said {
  textContent: string | null;
  said?: string[];
}
type Observer = new (callback: () => void) => {
  observe(target: unknown, options: Record<string, boolean>): void;
};

/** Clicks `button`; resolves once it has said "copied" (or fails naming what it said). */
export async function clickCopy(button: Locator): Promise<void> {
  await button.evaluate((element: Said) => {
    const said: string[] = [];
    element.said = said;
    const MutationObserver = (globalThis as unknown as { MutationObserver: Observer })
      .MutationObserver;
    new MutationObserver(() => said.push(element.textContent ?? '')).observe(element, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  await button.click();
  await expect
    .poll(() => button.evaluate((element: Said) => element.said ?? []), { timeout: 10_000 })
    .toContain('copied');
}
