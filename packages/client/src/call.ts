import type { Client } from "openapi-fetch";
import { errorOf } from "./errors.js";
import type { paths } from "./generated/api.js";

/** The typed client over every route of the Worker's OpenAPI document. */
export type Api = Client<paths>;

/** What openapi-fetch answers: data on success, the parsed body of a failure otherwise. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer and its status; any failure is thrown as an EdgemindError. */
export async function answered<T>(pending: Promise<Answer<T>>): Promise<{ data: T; status: number; response: Response }> {
  const { data, error, response } = await pending;
  if (!response.ok) throw errorOf(response, error);
  return { data: data as T, status: response.status, response };
}

/** The data of a successful answer. */
export async function dataOf<T>(pending: Promise<Answer<T>>): Promise<T> {
  return (await answered(pending)).data;
}
