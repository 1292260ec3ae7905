/**
 * Headers every answer carries, whichever layer made it (the app, the OAuth provider in front
 * of it, an escaped failure): the browser takes the Content-Type as given, so an error body
 * that echoes a path is never read as HTML.
 */
export function withSecurityHeaders(response: Response): Response {
  if (response.status === 101 || response.headers.has("X-Content-Type-Options")) return response;
  try {
    response.headers.set("X-Content-Type-Options", "nosniff");
    return response;
  } catch {
    // A response whose headers are immutable (one passed on from fetch) is copied.
    const copy = new Response(response.body, response);
    copy.headers.set("X-Content-Type-Options", "nosniff");
    return copy;
  }
}
