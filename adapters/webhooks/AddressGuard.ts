import ipaddr from "ipaddr.js"

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Range = readonly [Address, number]

const cidr = (text: string): Range => ipaddr.parseCIDR(text)

/** IPv4 blocks that are never a public webhook endpoint, beyond ipaddr.js's own classes. */
const REFUSED_V4_EXTRA: ReadonlyArray<readonly [string, Range]> = [
  ["an address reserved for protocol assignments", cidr("192.0.0.0/24")],
  ["an address reserved for benchmarking", cidr("198.18.0.0/15")],
  ["a reserved address", cidr("240.0.0.0/4")]
]

const REFUSED_V4_CLASSES: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT address",
  private: "a private address"
}

const REFUSED_V6_CLASSES: Record<string, string> = {
  unspecified: "an unspecified address",
  loopback: "a loopback address",
  linkLocal: "a link-local address",
  multicast: "a multicast address",
  uniqueLocal: "a unique-local address",
  deprecatedSiteLocal: "a site-local address",
  discard: "a discard-only address",
  rfc6145: "an IPv4-translated address",
  teredo: "a Teredo address",
  benchmarking: "an address reserved for benchmarking"
}

// RFC 8215's local-use NAT64 prefix translates within a network of its own choosing and
// embeds its IPv4 where no fixed offset reads it; ipaddr.js counts it as rfc6052.
const LOCAL_USE_NAT64: Range = cidr("64:ff9b:1::/48")

// ::/8 holds the unspecified and loopback addresses and the deprecated IPv4-compatible form
// (::127.0.0.1), which some stacks still route to IPv4.
const IPV6_LOW: Range = cidr("::/8")

const inRange = (address: Address, [base, bits]: Range): boolean =>
  address.kind() === base.kind() && address.match(base, bits)

/** The IPv4 address an IPv6 address carries: NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
const embeddedV4 = (address: ipaddr.IPv6): ipaddr.IPv4 | undefined => {
  const range = address.range()
  const bytes = address.toByteArray()
  if (range === "rfc6052") return new ipaddr.IPv4(bytes.slice(12, 16))
  if (range === "6to4") return new ipaddr.IPv4(bytes.slice(2, 6))
  return undefined
}

/**
 * An IPv6 text as the URL parser writes it. ipaddr.js reads a dotted tail after `::`
 * (`::8.8.8.8`, as a resolver may print an IPv4-compatible address) as IPv4-mapped, so that
 * address would be judged as the IPv4 it is not. Zone ids (`fe80::1%eth0`) are left as they are.
 */
const canonicalV6 = (text: string): string => {
  if (!text.includes(":") || !URL.canParse(`http://[${text}]/`)) return text
  return new URL(`http://[${text}]/`).hostname.slice(1, -1)
}

export interface AddressGuard {
  /** Why `address` (an IP in any textual form ipaddr.js reads) may not be connected to; undefined when it may. */
  readonly refusal: (address: string) => string | undefined
}

/**
 * Classifies destination addresses. Only public unicast passes; `allowed` (IPs or CIDRs)
 * exempts exactly the listed ranges. IPv4-mapped IPv6 is judged as the IPv4 it maps.
 */
export const makeAddressGuard = (allowed: ReadonlyArray<string>): AddressGuard => {
  const exempt: ReadonlyArray<Range> = allowed.map((entry) => {
    const text = entry.trim()
    if (text.includes("/")) return cidr(text)
    const address = ipaddr.process(canonicalV6(text))
    return [address, address.kind() === "ipv4" ? 32 : 128] as const
  })

  const judge = (address: Address): string | undefined => {
    if (exempt.some((range) => inRange(address, range))) return undefined
    if (address instanceof ipaddr.IPv4) {
      const v4 = address
      const cls = REFUSED_V4_CLASSES[v4.range()]
      if (cls !== undefined) return cls
      const extra = REFUSED_V4_EXTRA.find(([, range]) => inRange(v4, range))
      return extra === undefined ? undefined : extra[0]
    }
    const v6 = address
    const cls = REFUSED_V6_CLASSES[v6.range()]
    if (cls !== undefined) return cls
    if (inRange(v6, LOCAL_USE_NAT64)) return "a local-use NAT64 address"
    const inner = embeddedV4(v6)
    if (inner !== undefined) {
      const why = judge(inner)
      return why === undefined ? undefined : `${why} (${inner.toString()} inside ${v6.range()})`
    }
    return inRange(v6, IPV6_LOW) ? "a reserved address" : undefined
  }

  return {
    refusal: (text) => {
      const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
      if (!ipaddr.isValid(bare)) return "not an IP address"
      const why = judge(ipaddr.process(canonicalV6(bare)))
      return why === undefined ? undefined : `${bare} is ${why}`
    }
  }
}

/** Whether `allowed` entries are all IPs or CIDRs, for configuration checks. */
export const invalidExemptions = (allowed: ReadonlyArray<string>): ReadonlyArray<string> =>
  allowed.filter((entry) => {
    const text = entry.trim()
    return text.includes("/") ? !ipaddr.isValidCIDR(text) : !ipaddr.isValid(text)
  })
