/**
 * @module host/node-outbound
 * The Node host's outbound fetch when it listens beyond loopback: requests to loopback,
 * link-local, private and other non-public addresses are refused unless the administrator
 * allowed their range (`--allow-remote <cidr>`), so a remote connection cannot be pointed at
 * the services of the host's own network (an administrator of the API is not necessarily one
 * of the machine). The check is made on the address a connection really goes to: host names
 * are resolved by a lookup that refuses what it may not return, and the socket connects to
 * the address checked (no second resolution to race against); addresses written in the URL
 * (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]` are all 127.0.0.1 once parsed) are checked
 * before the request; redirects are followed here, one hop at a time, each hop checked again.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import ipaddr from 'ipaddr.js'
import type { Dispatcher } from 'undici'
import type { Platform } from '../platform/platform.ts'

/** Redirects followed per request, as browsers bound them (fetch's own limit is 20). */
const MAX_REDIRECTS = 5

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number]

/** Parses address ranges of `option` (`10.0.0.0/8`, `fd00::/8`, or one address); throws saying which is wrong. */
export function parseCidrs(list: readonly string[], option = '--allow-remote'): Cidr[] {
  return list.map((text) => {
    try {
      if (text.includes('/')) return ipaddr.parseCIDR(text)
      const a = ipaddr.parse(text)
      return [a, a.kind() === 'ipv4' ? 32 : 128]
    } catch {
      throw new Error(`Invalid ${option} '${text}': an address or a CIDR range such as 10.0.0.0/8.`)
    }
  })
}

/** Whether the host is reachable only from this machine (`--host` 127.0.0.1, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback'
}

/**
 * Why `address` may not be reached, or `undefined` when it may: public unicast addresses, and
 * those inside an allowed range. IPv4-mapped IPv6 addresses are judged as the IPv4 address.
 */
export function refusal(address: string, allow: readonly Cidr[]): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an address`
  const a = ipaddr.process(address)
  if (allow.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits))) return undefined
  const range = a.range()
  return range === 'unicast' ? undefined : `${a.toString()} is a ${range} address`
}

export class OutboundRefused extends Error {
  constructor(readonly target: string, readonly reason: string) {
    super(`Requests to ${target} are not allowed from this server (${reason}); an administrator of the machine may allow the range with --allow-remote.`)
    this.name = 'OutboundRefused'
  }
}

/** A DNS lookup that answers only addresses that may be reached. */
function guardedLookup(allow: readonly Cidr[]) {
  return (hostname: string, options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '')
      const ok = addresses.filter((a) => refusal(a.address, allow) === undefined)
      if (!ok.length) {
        return callback(new OutboundRefused(hostname, refusal(addresses[0]!.address, allow) ?? 'no address'), '')
      }
      if (options.all) callback(null, ok)
      else callback(null, ok[0]!.address, ok[0]!.family)
    })
  }
}

/**
 * The same rule for other connections than HTTP (a PostGIS connection's sockets:
 * sw/postgres/external/pools.ts `OutboundGuard`): the check, and a lookup refusing with an
 * `OutboundRefused` (its `reason`) what it may not return.
 */
export function outboundGuard(allow: readonly Cidr[]) {
  return { refusal: (address: string) => refusal(address, allow), lookup: guardedLookup(allow) }
}

/** The host part of a URL as an address, when it is one (URL parsing already normalised `2130706433`). */
const literal = (url: URL) => url.hostname.replace(/^\[|\]$/g, '')

/**
 * A fetch that refuses non-public addresses (but those in `allow`), follows redirects itself
 * and checks every hop. Credentials (`Authorization`) are not carried to another origin.
 */
export function guardedFetch(allow: readonly Cidr[]): Platform['fetch'] {
  // undici is loaded on the first outbound request, not at start: it adds 13 MiB to the RSS of
  // a host that may never reach another server.
  let undici: Promise<{ fetch: typeof import('undici').fetch; dispatcher: Dispatcher }> | undefined
  const load = () => (undici ??= import('undici').then((u) => ({ fetch: u.fetch, dispatcher: new u.Agent({ connect: { lookup: guardedLookup(allow) } }) })))
  return async (input, init = {}) => {
    const { fetch: undiciFetch, dispatcher } = await load()
    let url = new URL(input instanceof Request ? input.url : String(input))
    let method = init.method ?? 'GET'
    let body = init.body
    const headers = new Headers(init.headers)
    for (let hop = 0; ; hop++) {
      const host = literal(url)
      if (ipaddr.isValid(host)) {
        const why = refusal(host, allow)
        if (why) throw new TypeError('fetch failed', { cause: new OutboundRefused(url.host, why) })
      }
      // reason: undici's RequestInit is its own type, structurally the web's
      const res = await undiciFetch(url, { ...init, method, body, headers, redirect: 'manual', dispatcher } as any) as unknown as Response
      const location = res.headers.get('location')
      if (res.status < 300 || res.status > 399 || res.status === 304 || !location || init.redirect === 'manual') return res
      if (hop >= MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) })
      await res.body?.cancel().catch(() => undefined)
      const next = new URL(location, url)
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new TypeError('fetch failed', { cause: new Error(`a redirect to ${next.protocol}`) })
      if (next.origin !== url.origin) headers.delete('authorization')
      // As fetch does: 303, and 301/302 after a POST, become a GET without a body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET'
        body = undefined
        headers.delete('content-type')
      }
      url = next
    }
  }
}
