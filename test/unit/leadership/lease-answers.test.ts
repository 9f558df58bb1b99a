/**
 * answersAgain: leader election's Lease calls as the earliest sign that the management API is
 * back. It speaks once per outage, on the first answer after failed calls (a 409 is an answer),
 * and never while calls keep succeeding or keep failing.
 */
import { describe, expect, it } from 'vitest';
import type { LeaseObject, LeaseStore } from '../../../src/kube/ports.js';
import { answersAgain } from '../../../src/leadership/leadership.js';
import { FakeLeases } from '../../support/fake-lease-store.js';

const LEASE: LeaseObject = { metadata: { namespace: 'flux-system', name: 'l' }, spec: {} };

describe('answersAgain', () => {
  it('speaks once on the first answer after failures, and counts a conflict as an answer', async () => {
    const view = new FakeLeases().view();
    let answered = 0;
    const store = answersAgain(view, () => (answered += 1));
    await store.create(LEASE);
    await store.get('flux-system', 'l');
    expect(answered).toBe(0);

    view.cutOff = true;
    await store.get('flux-system', 'l');
    await store.get('flux-system', 'l');
    expect(answered).toBe(0);
    view.cutOff = false;
    // The Lease exists: this create is a 409, which only a reachable API server answers.
    expect(await store.create(LEASE)).toMatchObject({ ok: false, conflict: true });
    await store.get('flux-system', 'l');
    expect(answered).toBe(1);

    view.forbidden = true;
    await store.get('flux-system', 'l');
    view.forbidden = false;
    await store.get('flux-system', 'l');
    expect(answered).toBe(2);
  });

  it('counts a call that threw as failed, and passes the error on', async () => {
    let fail = true;
    const inner: LeaseStore = {
      get: () =>
        fail
          ? Promise.reject(new Error('socket hang up'))
          : Promise.resolve({ ok: true, value: undefined }),
      create: () => Promise.resolve({ ok: false, conflict: true }),
      replace: () => Promise.resolve({ ok: false, conflict: true }),
    };
    let answered = 0;
    const store = answersAgain(inner, () => (answered += 1));
    await expect(store.get('flux-system', 'l')).rejects.toThrow('socket hang up');
    fail = false;
    await store.get('flux-system', 'l');
    expect(answered).toBe(1);
  });
});
