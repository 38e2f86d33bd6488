import { describe, expect, it } from 'vitest'
import { isLoopbackHost, parseCidrs, refusal } from '../../sw/host/node-outbound.ts'

describe('the outbound address rule of a host listening beyond loopback', () => {
  it('refuses loopback, link-local, private and unspecified addresses in every spelling; public ones pass', () => {
    for (const [addr, range] of [['127.0.0.1', 'loopback'], ['127.8.9.10', 'loopback'], ['::1', 'loopback'],
      ['169.254.169.254', 'linkLocal'], ['fe80::1', 'linkLocal'], ['10.1.2.3', 'private'], ['172.16.0.1', 'private'],
      ['192.168.1.1', 'private'], ['fd00::1', 'uniqueLocal'], ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
      ['::ffff:127.0.0.1', 'loopback'], ['::ffff:10.0.0.1', 'private']]) {
      expect(refusal(addr!, []), addr).toContain(`a ${range} address`)
    }
    for (const addr of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(refusal(addr, []), addr).toBeUndefined()
  })

  it('--allow-remote ranges let addresses through, IPv4-mapped ones included', () => {
    const allow = parseCidrs(['192.168.1.0/24', '127.0.0.1'])
    expect(refusal('192.168.1.77', allow)).toBeUndefined()
    expect(refusal('::ffff:192.168.1.77', allow)).toBeUndefined()
    expect(refusal('127.0.0.1', allow)).toBeUndefined()
    expect(refusal('127.0.0.2', allow)).toContain('loopback')
    expect(refusal('192.168.2.1', allow)).toContain('private')
    expect(() => parseCidrs(['192.168.1.0/33'])).toThrow(/Invalid --allow-remote '192.168.1.0\/33'/)
    expect(() => parseCidrs(['localhost'])).toThrow(/Invalid --allow-remote/)
  })

  it('knows which --host values are loopback only', () => {
    for (const h of ['127.0.0.1', '::1', 'localhost', '127.0.0.2']) expect(isLoopbackHost(h), h).toBe(true)
    for (const h of ['0.0.0.0', '::', '192.168.1.5']) expect(isLoopbackHost(h), h).toBe(false)
  })
})
