// Signing secrets are kept encrypted: AES-GCM (WebCrypto) under a key derived with HKDF from the
// Worker secret WEBHOOK_ENCRYPTION_KEY, each with a random 96-bit IV and the webhook's id as
// additional data, so a stored secret opens only on its own row. The Worker secret never leaves
// the isolate; the database holds `v1.<iv>.<ciphertext>` (base64url).

const VERSION = "v1";
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

const toBase64Url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromBase64Url = (text: string) => Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));

/** The AES key a Worker secret stands for, derived once per isolate. */
function keyOf(workerSecret: string): Promise<CryptoKey> {
  let key = keys.get(workerSecret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(workerSecret), "HKDF", false, ["deriveKey"])
      .then((material) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("edgemind webhook signing secrets") },
          material,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    keys.clear();
    keys.set(workerSecret, key);
  }
  return key;
}

/** The secret encrypted for the webhook `id`. */
export async function sealSecret(workerSecret: string, id: string, secret: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(id) }, await keyOf(workerSecret), encoder.encode(secret));
  return `${VERSION}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

/** The secret a sealed text of the webhook `id` holds; throws when it was not sealed for it under this key. */
export async function openSecret(workerSecret: string, id: string, sealed: string): Promise<string> {
  const [version, iv, data] = sealed.split(".");
  if (version !== VERSION || !iv || !data) throw new Error("not a sealed secret");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64Url(iv), additionalData: encoder.encode(id) }, await keyOf(workerSecret), fromBase64Url(data));
  return new TextDecoder().decode(plain);
}
