import { createD1Meter, type D1Meter } from "./d1-meter";
import { type LogFields, logEvent } from "./log";

export const REQUEST_ID_HEADER = "X-Request-Id";

/** Cloudflare's ray id (16 hex digits, a dash, the data centre): the id the edge logs the request under. */
const RAY_ID = /^[0-9a-f]{16}(-[A-Z]{3,4})?$/;
/** The ids this Worker makes, or a ray id. */
const REQUEST_ID = /^([0-9a-f]{16}(-[A-Z]{3,4})?|req_[0-9a-f]{32})$/;

/** One request as its log line will tell it; what the app learns on the way (route, mind) is added to `fields`. */
export interface RequestObservation {
  requestId: string;
  meter: D1Meter;
  startedAt: number;
  fields: LogFields;
}

// Requests in flight in this isolate, by id: how the app finds the observation the entry point began.
const inFlight = new Map<string, RequestObservation>();

/** The request's id: its ray id when Cloudflare's edge gave one, else a new one; whatever the client sent is replaced. */
function requestIdFor(request: Request): string {
  const ray = request.headers.get("cf-ray");
  return ray !== null && RAY_ID.test(ray) ? ray : `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * Begins observing a request at the Worker's entry: gives it an id, carried on in the request's
 * own X-Request-Id header (a client's is overwritten), and a D1 meter for the app's bindings.
 */
export function beginRequest(request: Request): { request: Request; observation: RequestObservation } {
  const requestId = requestIdFor(request);
  const headers = new Headers(request.headers);
  headers.set(REQUEST_ID_HEADER, requestId);
  const observation: RequestObservation = { requestId, meter: createD1Meter(), startedAt: Date.now(), fields: { method: request.method } };
  inFlight.set(requestId, observation);
  return { request: new Request(request, { headers }), observation };
}

/** The observation of a request the entry point began (null: the app was called some other way, as tests do). */
export function observationOf(request: Request): RequestObservation | null {
  const id = request.headers.get(REQUEST_ID_HEADER);
  return id !== null && REQUEST_ID.test(id) ? (inFlight.get(id) ?? null) : null;
}

/** The id an error body and a log line name the request by. */
export function requestIdOf(request: Request): string {
  return observationOf(request)?.requestId ?? "none";
}

/** Adds what the app learnt (route, mind, shard, an error's code) to the request's line. */
export function noteRequest(request: Request, fields: LogFields): void {
  const observation = observationOf(request);
  if (observation) Object.assign(observation.fields, fields);
}

/** Ends a request: its answer carries the id, and one line tells what it did and cost. */
export function endRequest(observation: RequestObservation, response: Response): Response {
  inFlight.delete(observation.requestId);
  const answer = withHeader(response, REQUEST_ID_HEADER, observation.requestId);
  const status = answer.status;
  logEvent(status >= 500 ? "error" : status >= 400 ? "warn" : "info", "request", {
    request_id: observation.requestId,
    ...observation.fields,
    status,
    duration_ms: Date.now() - observation.startedAt,
    ...observation.meter.totals(),
  });
  return answer;
}

function withHeader(response: Response, name: string, value: string): Response {
  if (response.status === 101) return response;
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    // A response whose headers are immutable (one passed on from fetch) is copied.
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}
