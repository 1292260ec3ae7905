declare module "node:async_hooks" {
  /** The one part of Node's async_hooks workerd gives (compatibility flag nodejs_als): a value that follows the work it was set for. */
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, callback: () => R): R;
  }
}
