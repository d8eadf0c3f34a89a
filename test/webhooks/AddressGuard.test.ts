import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { makeAddressGuard } from "../../adapters/webhooks/AddressGuard.js"
import * as HttpWebhookSender from "../../adapters/webhooks/HttpWebhookSender.js"

/** Names under .test resolve here, never through real DNS. */
const DNS: Record<string, ReadonlyArray<string>> = {
  "public.test": ["93.184.216.34"],
  "internal.test": ["10.0.0.5"],
  "metadata.test": ["169.254.169.254", "fd00:ec2::254"],
  "mixed.test": ["10.0.0.1", "93.184.216.34"],
  "loopback.test": ["127.0.0.1"]
}
const resolve: HttpWebhookSender.Resolver = async (hostname) => {
  const addresses = DNS[hostname]
  if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
}

const accepts = (allowed: ReadonlyArray<string>, url: string) =>
  HttpWebhookSender.make({ allowedPrivateAddresses: allowed, resolve }).checkDestination(url).pipe(Effect.exit, Effect.map(Exit.isSuccess))

const REFUSED: ReadonlyArray<readonly [string, string]> = [
  ["http://127.0.0.1/hook", "loopback"],
  ["http://127.1/hook", "loopback, short form"],
  ["http://2130706433/hook", "loopback, one decimal number"],
  ["http://0x7f000001/hook", "loopback, one hex number"],
  ["http://017700000001/hook", "loopback, one octal number"],
  ["http://0x7f.0.0.1/hook", "loopback, hex first octet"],
  ["http://%31%32%37.0.0.1/hook", "loopback, percent-encoded"],
  ["http://127.0.0.2:8080/hook", "loopback, not .1"],
  ["http://[::1]/hook", "IPv6 loopback"],
  ["http://[::ffff:127.0.0.1]/hook", "IPv4-mapped loopback"],
  ["http://[0:0:0:0:0:ffff:7f00:1]/hook", "IPv4-mapped loopback, long form"],
  ["http://[::127.0.0.1]/hook", "IPv4-compatible loopback"],
  ["http://0.0.0.0/hook", "unspecified"],
  ["http://0/hook", "unspecified, one number"],
  ["http://[::]/hook", "IPv6 unspecified"],
  ["http://10.1.2.3/hook", "RFC 1918 10/8"],
  ["http://172.16.5.4/hook", "RFC 1918 172.16/12"],
  ["http://172.31.255.255/hook", "RFC 1918 172.16/12, top"],
  ["http://192.168.1.20/hook", "RFC 1918 192.168/16"],
  ["http://[::ffff:192.168.0.1]/hook", "IPv4-mapped private"],
  ["http://169.254.169.254/latest", "link-local (cloud metadata)"],
  ["http://[::ffff:a9fe:a9fe]/latest", "IPv4-mapped link-local, hex"],
  ["http://[fe80::1]/hook", "IPv6 link-local"],
  ["http://224.0.0.1/hook", "multicast"],
  ["http://[ff02::1]/hook", "IPv6 multicast"],
  ["http://255.255.255.255/hook", "broadcast"],
  ["http://100.64.0.1/hook", "carrier-grade NAT"],
  ["http://100.127.255.254/hook", "carrier-grade NAT, top"],
  ["http://[fd00::1]/hook", "unique-local"],
  ["http://[fc00::5]/hook", "unique-local, fc00"],
  ["http://[64:ff9b::a00:1]/hook", "NAT64 of 10.0.0.1"],
  ["http://[2002:7f00:1::]/hook", "6to4 of 127.0.0.1"],
  ["http://198.18.0.1/hook", "benchmarking"],
  ["http://240.0.0.1/hook", "reserved 240/4"],
  ["http://localhost/hook", "localhost"],
  ["http://LOCALHOST./hook", "localhost, upper case with root dot"],
  ["http://api.localhost:3000/hook", "a name under .localhost"],
  ["http://internal.test/hook", "a name that resolves to a private address"],
  ["http://metadata.test/hook", "a name that resolves only to internal addresses"],
  ["http://loopback.test/hook", "a name that resolves to loopback"],
  ["ftp://203.0.113.10/hook", "not http(s)"],
  ["file:///etc/passwd", "a file URL"],
  ["javascript:alert(1)", "not a network URL"]
]

const ACCEPTED: ReadonlyArray<readonly [string, string]> = [
  ["http://93.184.216.34/hook", "public IPv4"],
  ["https://203.0.113.10/hook", "documentation range: public, routes nowhere"],
  ["http://172.32.0.1/hook", "just above 172.16/12"],
  ["http://100.128.0.1/hook", "just above carrier-grade NAT"],
  ["http://[2606:4700:4700::1111]/hook", "public IPv6"],
  ["http://[64:ff9b::5db8:d822]/hook", "NAT64 of a public address"],
  ["http://public.test/hook", "a name that resolves to a public address"],
  ["http://mixed.test/hook", "a name with a public address among private ones (only the public one is used)"],
  ["https://nowhere.test/hook", "a name that does not resolve yet (checked again at delivery)"]
]

describe("the webhook address guard", () => {
  it.effect.each(REFUSED)("refuses %s (%s)", ([url]) =>
    Effect.gen(function*() {
      expect(yield* accepts([], url)).toBe(false)
    }))

  it.effect.each(ACCEPTED)("accepts %s (%s)", ([url]) =>
    Effect.gen(function*() {
      expect(yield* accepts([], url)).toBe(true)
    }))

  it.effect("exempts exactly the listed ranges", () =>
    Effect.gen(function*() {
      const loopbackOnly = ["127.0.0.1/32"]
      expect(yield* accepts(loopbackOnly, "http://127.0.0.1:9/hook")).toBe(true)
      expect(yield* accepts(loopbackOnly, "http://[::ffff:127.0.0.1]:9/hook")).toBe(true)
      expect(yield* accepts(loopbackOnly, "http://localhost:9/hook")).toBe(false)
      expect(yield* accepts(loopbackOnly, "http://api.localhost:9/hook")).toBe(false)
      expect(yield* accepts(loopbackOnly, "http://127.0.0.2:9/hook")).toBe(false)
      expect(yield* accepts(loopbackOnly, "http://[::1]:9/hook")).toBe(false)
      expect(yield* accepts(loopbackOnly, "http://10.0.0.1/hook")).toBe(false)
      const lan = ["10.0.0.0/8", "fd00::/8", "192.168.7.7"]
      expect(yield* accepts(lan, "http://10.9.9.9/hook")).toBe(true)
      expect(yield* accepts(lan, "http://internal.test/hook")).toBe(true)
      expect(yield* accepts(lan, "http://[fd00::1]/hook")).toBe(true)
      expect(yield* accepts(lan, "http://192.168.7.7/hook")).toBe(true)
      expect(yield* accepts(lan, "http://192.168.7.8/hook")).toBe(false)
      expect(yield* accepts(lan, "http://127.0.0.1/hook")).toBe(false)
    }))

  it.each([
    ["0.0.0.0", "0.0.0.0 is an unspecified address"],
    ["::", ":: is an unspecified address"],
    ["10.0.0.1", "10.0.0.1 is a private address"],
    ["192.0.0.8", "192.0.0.8 is an address reserved for protocol assignments"],
    ["198.18.0.1", "198.18.0.1 is an address reserved for benchmarking"],
    ["240.0.0.1", "240.0.0.1 is a reserved address"],
    ["64:ff9b::a00:1", "64:ff9b::a00:1 is a private address (10.0.0.1 inside rfc6052)"],
    // A resolver prints an IPv4-compatible address with a dotted tail: still ::/8, not IPv4-mapped.
    ["::8.8.8.8", "::8.8.8.8 is a reserved address"],
    ["[::8.8.8.8]", "::8.8.8.8 is a reserved address"],
    // RFC 8215 local use: 10.0.0.1 at the /48 offsets, 8.8.8.8 where the /96 form would be read.
    ["64:ff9b:1:a00:0:100:808:808", "64:ff9b:1:a00:0:100:808:808 is a local-use NAT64 address"]
  ])("says in plain words why %s is refused", (address, why) => {
    expect(makeAddressGuard([]).refusal(address)).toBe(why)
  })

  it("refuses a configuration entry that is not an IP or a CIDR", () => {
    expect(() => HttpWebhookSender.make({ allowedPrivateAddresses: ["10.0.0.0/8", "intranet"] })).toThrow(/intranet/)
  })
})
