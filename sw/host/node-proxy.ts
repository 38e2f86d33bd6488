/**
 * @module host/node-proxy
 * The client's address behind a reverse proxy (`--trust-proxy <cidr…>`), for the per-address
 * login limits (sw/auth/service.ts). Behind nginx every request's socket peer is the proxy, so
 * one guesser would lock out everyone; the proxy says who its client was in `X-Forwarded-For`.
 * Anyone can send that header, so it is read only when the socket's peer is a trusted proxy,
 * and then from the right: each trusted proxy appends the address it saw, so the right-most
 * address that is not itself a trusted proxy is the first one no trusted party vouches beyond,
 * the client. What a client wrote into the header itself stands to the left of it and is never
 * taken. Without `--trust-proxy` the header is ignored.
 */
import ipaddr from 'ipaddr.js'
import type { Cidr } from './node-outbound.ts'

/** `address` in one spelling (`::ffff:10.0.0.1` is 10.0.0.1), or `undefined` when it is not an address. */
function canonical(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const a = address.trim().replace(/^\[(.*)\]$/, '$1')
  return ipaddr.isValid(a) ? ipaddr.process(a) : undefined
}

const trusted = (a: ipaddr.IPv4 | ipaddr.IPv6, ranges: readonly Cidr[]) =>
  ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits))

/**
 * The client's address for a request whose socket peer is `peer` and whose `X-Forwarded-For`
 * header (all of its lines joined by commas, as Node gives them) is `forwardedFor`.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, proxies: readonly Cidr[]): string | undefined {
  const direct = peer === undefined ? undefined : canonical(peer)
  if (!direct || !proxies.length || !forwardedFor || !trusted(direct, proxies)) return peer
  // The nearest hop vouched for so far: the peer, then each trusted proxy named in the header.
  let nearest = direct
  const hops = forwardedFor.split(',')
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonical(hops[i]!)
    // Not an address where a trusted proxy should have written one: nothing left of it is vouched for.
    if (!hop) break
    if (!trusted(hop, proxies)) return hop.toString()
    nearest = hop
  }
  // Every hop a trusted range (a client on the proxies' own network): the farthest one.
  return nearest.toString()
}
