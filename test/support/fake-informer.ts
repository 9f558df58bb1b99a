/**
 * A client-node informer without a server, for PipelineWatcher's restart logic: start() lists
 * through the watcher's own list function when it has no resourceVersion (first start, or after
 * a 410), then "watches"; a failed list or watch is reported through 'error' and start() still
 * resolves, exactly as client-node's ListWatch does. A fake KubeConfig answers the LIST.
 */
import type {
  Informer,
  KubeConfig,
  KubernetesListObject,
  KubernetesObject,
} from '@kubernetes/client-node';
import type { InformerFactory } from '../../src/kube/pipeline-watch.js';
import { AgentPool } from '../../src/kube/agent-pool.js';
import { KubeCalls } from '../../src/kube/request-options.js';

/** Object callbacks take the object; error callbacks take anything (client-node's `any`). */
type Callback = (arg: KubernetesObject) => void;
type ListFn = () => Promise<KubernetesListObject<KubernetesObject>>;

/** One fake informer; a test sets `down` to make its next starts fail. */
export class FakeInformer implements Informer<KubernetesObject> {
  /** While true, every start fails (its list or watch is refused). */
  down = false;
  starts = 0;
  lists = 0;
  private resourceVersion = '';
  private readonly callbacks = new Map<string, Callback[]>();

  constructor(private readonly list: ListFn) {}

  on(verb: string, cb: Callback): void {
    this.callbacks.set(verb, [...(this.callbacks.get(verb) ?? []), cb]);
  }

  off(verb: string, cb: Callback): void {
    this.callbacks.set(
      verb,
      (this.callbacks.get(verb) ?? []).filter((c) => c !== cb),
    );
  }

  async start(): Promise<void> {
    this.starts += 1;
    this.emit('connect');
    if (this.resourceVersion === '') {
      if (this.down) {
        this.emit('error', refused());
        return;
      }
      this.lists += 1;
      const listed = await this.list();
      for (const item of listed.items) this.emit('add', item);
      this.resourceVersion = listed.metadata?.resourceVersion ?? '1';
    }
    if (this.down) this.emit('error', refused());
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  /** The open watch breaks (a dropped connection), as client-node reports it. */
  breakWatch(): void {
    this.emit('error', refused());
  }

  /** The API server answered 410 Gone: the next start lists again. */
  expire(): void {
    this.resourceVersion = '';
  }

  private emit(verb: string, arg?: KubernetesObject | Error): void {
    // An error callback is typed to take the object too (see Callback); it takes any value.
    for (const cb of this.callbacks.get(verb) ?? []) cb(arg as KubernetesObject);
  }
}

/** The informers a PipelineWatcher made, in order, and the factory that makes them. */
export function fakeInformers(): { made: FakeInformer[]; factory: InformerFactory } {
  const made: FakeInformer[] = [];
  return {
    made,
    factory: (_path, list) => {
      const informer = new FakeInformer(list);
      made.push(informer);
      return informer;
    },
  };
}

/**
 * A KubeConfig whose CustomObjectsApi lists `items()` (one page, resourceVersion 1) and the
 * KubeCalls the watcher passes along: all a watcher over fake informers calls.
 */
export function fakeManagement(items: () => KubernetesObject[] = () => []): {
  kubeConfig: KubeConfig;
  calls: KubeCalls;
  pages: () => Promise<unknown>;
} {
  return {
    kubeConfig: {} as KubeConfig,
    calls: new KubeCalls(10_000, new AgentPool()),
    pages: () => Promise.resolve({ metadata: { resourceVersion: '1' }, items: items() }),
  };
}

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
}
