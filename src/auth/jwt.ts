import { jwtVerify, SignJWT } from "jose";
import type { AuthConfig } from "../config";

const ALGORITHM = "HS256";

/** Issues a human's token: HS256, with issuer, audience and expiry. */
export async function issueAccountToken(config: AuthConfig, accountId: string, now: Date): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
    .setSubject(accountId)
    .setIssuer(config.issuer)
    .setAudience(config.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + config.tokenTtlSeconds)
    .sign(config.jwtSecret);
}

/** The account id a token was issued for, or null for any token that fails a check. */
export async function verifyAccountToken(config: AuthConfig, token: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, config.jwtSecret, {
      algorithms: [ALGORITHM],
      issuer: config.issuer,
      audience: config.audience,
      requiredClaims: ["exp", "sub"],
    });
    return payload.sub ?? null;
  } catch {
    return null;
  }
}
