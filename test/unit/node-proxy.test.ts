import { describe, expect, it } from 'vitest'
import { clientAddress } from '../../sw/host/node-proxy.ts'
import { parseCidrs } from '../../sw/host/node-outbound.ts'

describe('the client address behind a trusted reverse proxy (--trust-proxy)', () => {
  const proxies = parseCidrs(['127.0.0.1', '10.0.0.0/8'], '--trust-proxy')

  it('from a trusted peer: the right-most forwarded address that is not a trusted proxy', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7', proxies)).toBe('203.0.113.7')
    expect(clientAddress('::ffff:127.0.0.1', '203.0.113.7', proxies)).toBe('203.0.113.7')
    // Two proxies (10.1.1.1 forwarded to nginx on 127.0.0.1); what the client wrote itself stands left and is not taken.
    expect(clientAddress('127.0.0.1', '198.51.100.1, 203.0.113.7, 10.1.1.1', proxies)).toBe('203.0.113.7')
    expect(clientAddress('127.0.0.1', '2001:db8::1', proxies)).toBe('2001:db8::1')
    expect(clientAddress('127.0.0.1', '[2001:db8::1]', proxies)).toBe('2001:db8::1')
  })

  it('ignores the header from any other peer, without ranges, or when absent', () => {
    expect(clientAddress('192.0.2.5', '203.0.113.7', proxies)).toBe('192.0.2.5')
    expect(clientAddress('127.0.0.1', '203.0.113.7', [])).toBe('127.0.0.1')
    expect(clientAddress('127.0.0.1', undefined, proxies)).toBe('127.0.0.1')
    expect(clientAddress(undefined, '203.0.113.7', proxies)).toBeUndefined()
  })

  it('stops at what is not an address (nothing left of it is vouched for); all hops trusted: the farthest', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7, unknown', proxies)).toBe('127.0.0.1')
    expect(clientAddress('127.0.0.1', '203.0.113.7, garbage, 10.2.2.2', proxies)).toBe('10.2.2.2')
    expect(clientAddress('127.0.0.1', '10.3.3.3, 10.2.2.2', proxies)).toBe('10.3.3.3')
  })

  it('names the option in a bad range', () => {
    expect(() => parseCidrs(['nginx'], '--trust-proxy')).toThrow("Invalid --trust-proxy 'nginx'")
  })
})
