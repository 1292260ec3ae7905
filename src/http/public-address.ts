// Whether an IP address is one the public internet routes to, for outgoing requests to URLs a
// user gave (webhooks): loopback, private, link-local (cloud metadata at 169.254.169.254 and
// fd00:ec2::254), shared, reserved, documentation and multicast ranges are not, nor IPv6 forms that
// carry an IPv4 address (mapped, compatible, NAT64, 6to4) when the address they carry is not.
// Hosts come from the URL parser, which already writes every IPv4 spelling (decimal 2130706433,
// octal 0177.0.0.1, hex 0x7f.1, short 127.1) as dotted decimal and IPv6 in its short form.

/** What an address is to an outgoing request: public, this machine, or anything else that is not public. */
export type AddressKind = "public" | "loopback" | "private";

/** IPv4 ranges that are not public, as [first octets, prefix length]. */
const IPV4_NOT_PUBLIC: [number[], number][] = [
  [[0], 8],
  [[10], 8],
  [[100, 64], 10],
  [[169, 254], 16],
  [[172, 16], 12],
  [[192, 0, 0], 24],
  [[192, 0, 2], 24],
  [[192, 88, 99], 24],
  [[192, 168], 16],
  [[198, 18], 15],
  [[198, 51, 100], 24],
  [[203, 0, 113], 24],
  [[224], 4],
  [[240], 4],
];

/** IPv6 ranges that are not public (besides those carrying IPv4), as [first groups, prefix length]. */
const IPV6_NOT_PUBLIC: [number[], number][] = [
  [[0x0100], 64], // discard
  [[0x2001, 0x0000], 32], // Teredo: its IPv4 is hidden
  [[0x2001, 0x0db8], 32], // documentation
  [[0x2001, 0x0010], 28], // ORCHID
  [[0xfc00], 7], // unique local (fd00:ec2::254 among them)
  [[0xfe80], 10], // link-local
  [[0xfec0], 10], // site-local
  [[0xff00], 8], // multicast
];

/** Whether the first `prefix` bits of `value` (units of `bits` bits) are those of `range`. */
function inRange(value: number[], range: number[], prefix: number, bits: number): boolean {
  for (let i = 0; i * bits < prefix; i++) {
    const take = Math.min(bits, prefix - i * bits);
    const shift = bits - take;
    if ((value[i] ?? 0) >> shift !== (range[i] ?? 0) >> shift) return false;
  }
  return true;
}

/** The four octets of a dotted-decimal IPv4 address, or null. */
export function parseIPv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (brackets, a zone and a dotted IPv4 tail allowed), or null. */
export function parseIPv6(text: string): number[] | null {
  let body = text.replace(/^\[|\]$/g, "").split("%")[0]!.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail) {
    const v4 = parseIPv4(tail[1]!);
    if (!v4) return null;
    body = `${body.slice(0, tail.index)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return null;
  const all = [...head, ...Array<string>(Math.max(missing, 0)).fill("0"), ...rest];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => Number.parseInt(g, 16));
}

function ipv4Kind(octets: number[]): AddressKind {
  if (octets[0] === 127) return "loopback";
  return IPV4_NOT_PUBLIC.some(([range, prefix]) => inRange(octets, range, prefix, 8)) || octets.every((o) => o === 255) ? "private" : "public";
}

/** The IPv4 address an IPv6 address carries in its last 32 bits or after 2002: (6to4), if it is of such a form. */
function carriedIPv4(groups: number[]): number[] | null {
  const octets = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeros(5) && groups[5] === 0xffff) return octets(groups[6]!, groups[7]!); // ::ffff:a.b.c.d
  if (zeros(6)) return octets(groups[6]!, groups[7]!); // ::a.b.c.d (compatible)
  if (zeros(4) && groups[4] === 0xffff && groups[5] === 0) return octets(groups[6]!, groups[7]!); // ::ffff:0:a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b) return octets(groups[6]!, groups[7]!); // NAT64
  if (groups[0] === 0x2002) return octets(groups[1]!, groups[2]!); // 6to4
  return null;
}

function ipv6Kind(groups: number[]): AddressKind {
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return "loopback";
  if (groups.every((g) => g === 0)) return "private";
  const carried = carriedIPv4(groups);
  if (carried) return ipv4Kind(carried);
  return IPV6_NOT_PUBLIC.some(([range, prefix]) => inRange(groups, range, prefix, 16)) ? "private" : "public";
}

/** What an IP address (either family, IPv6 with or without brackets) is; null when the text is no IP address. */
export function addressKind(text: string): AddressKind | null {
  const v4 = parseIPv4(text);
  if (v4) return ipv4Kind(v4);
  const v6 = text.includes(":") ? parseIPv6(text) : null;
  return v6 ? ipv6Kind(v6) : null;
}
