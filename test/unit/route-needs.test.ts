import { describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { onPath, PUBLIC, RouteTable } from '../../sw/core/routes.ts'
import { createApp } from '../../sw/app.ts'

describe('route declarations', () => {
  it('a route without a declared need, for any of its methods, does not start', () => {
    const table = new RouteTable(new Hono(), () => {})
    expect(() => table.add('x.item', '/api/x/{id}', ['GET', 'PUT'], { GET: onPath('resource', 'read') }, () => new Response()))
      .toThrow('Route x.item (PUT /api/x/{id}) declares no permission')
    expect(() => table.add('x.none', '/api/x/', 'GET', {}, () => new Response())).toThrow('declares no permission')
    table.add('x.open', '/api/x/open', 'GET', PUBLIC('a test'), () => new Response())
    expect(table.declarations().map((d) => `${d.method} ${d.name}`)).toEqual(['GET x.open'])
  })

  it('the app declares a need for every route of its table', () => {
    // createApp registers every component's routes; one without a declaration would throw here.
    expect(() => createApp({} as never)).not.toThrow()
  })
})
