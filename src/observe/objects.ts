import { withRequestId } from "./log";

type ObjectClass = new (ctx: DurableObjectState, env: never) => object;

/**
 * A Durable Object class whose every call and alarm writes its lines under one request id: a
 * new `alarm_…` for an alarm, a new `call_…` for a call (a call does not carry its caller's id;
 * work a request queues for later, a Telegram update, carries the request's id itself).
 */
export function loggedObject<C extends ObjectClass>(Base: C): C {
  const Logged = class extends (Base as unknown as new (ctx: DurableObjectState, env: unknown) => object) {};
  for (const name of Object.getOwnPropertyNames(Base.prototype)) {
    const method: unknown = Object.getOwnPropertyDescriptor(Base.prototype, name)?.value;
    if (name === "constructor" || typeof method !== "function") continue;
    const kind = name === "alarm" ? "alarm" : "call";
    Object.defineProperty(Logged.prototype, name, {
      value: function (this: object, ...args: unknown[]): unknown {
        return withRequestId(kind, () => method.apply(this, args));
      },
      writable: true,
      configurable: true,
    });
  }
  return Logged as unknown as C;
}
