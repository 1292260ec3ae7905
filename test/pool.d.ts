// The test pool's own module, for the check that its entrypoint wrappers stay flat
// (test/security/fuzz.test.ts; the fix is in patches/).
declare module "cloudflare:test-internal" {
  export function createWorkerEntrypointWrapper(entrypoint: string): new (ctx: ExecutionContext, env: Cloudflare.Env) => object;
}
