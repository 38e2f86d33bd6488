/**
 * A small real WMS for the WMS client's tests (issue 26 item 2): a node:http server answering
 * GetCapabilities from a fixture document (1.1.1 or 1.3.0, as asked) and GetMap with a PNG
 * (pngjs) whose colour says where the BBOX's centre is: red when west of 0, green when
 * south of 0 (both, neither), read in the axis order the version and CRS prescribe (1.3.0 with
 * EPSG:4326 is latitude first). The first path segment chooses how it behaves: `ok`, `auth`
 * (Basic `wms:secret`), `exception` (a ServiceExceptionReport), `html` (a login page), `huge`
 * (declares 400 MB), `silent` (never answers), `nocors` (no CORS headers), `flaky` (drops the
 * connection while `down`). Every other answer allows any origin, so the service worker can
 * read it across origins. The server is started once per process (`wmsRemote()`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { PNG } from 'pngjs'

export type WmsMode = 'ok' | 'auth' | 'exception' | 'html' | 'huge' | 'silent' | 'nocors' | 'flaky'

/** A secret a service on the host's network might answer: never echoed to a client. */
export const WMS_SECRET = 'wms-internal-7c1d'

const caps = (version: string) => {
  const v13 = version === '1.3.0'
  const box = (w: number, s: number, e: number, n: number) => (v13
    ? `<EX_GeographicBoundingBox><westBoundLongitude>${w}</westBoundLongitude><eastBoundLongitude>${e}</eastBoundLongitude><southBoundLatitude>${s}</southBoundLatitude><northBoundLatitude>${n}</northBoundLatitude></EX_GeographicBoundingBox>`
    : `<LatLonBoundingBox minx="${w}" miny="${s}" maxx="${e}" maxy="${n}"/>`)
  const srs = (codes: string) => (v13 ? `<CRS>${codes}</CRS>` : `<SRS>${codes}</SRS>`)
  const root = v13 ? 'WMS_Capabilities xmlns="http://www.opengis.net/wms"' : 'WMT_MS_Capabilities'
  return `<?xml version="1.0" encoding="UTF-8"?>
<${root} version="${version}" xmlns:xlink="http://www.w3.org/1999/xlink">
  <Service><Name>WMS</Name><Title>Test WMS</Title></Service>
  <Capability>
    <Request>
      <GetCapabilities><Format>text/xml</Format></GetCapabilities>
      <GetMap><Format>image/png</Format><Format>image/jpeg</Format>
        <DCPType><HTTP><Get><OnlineResource xlink:type="simple" xlink:href="http://internal.example/wms?"/></Get></HTTP></DCPType></GetMap>
      <GetFeatureInfo><Format>text/html</Format>
        <DCPType><HTTP><Get><OnlineResource xlink:href="http://internal.example/wms?"/></Get></HTTP></DCPType></GetFeatureInfo>
    </Request>
    <Layer><Title>Root</Title>${srs('EPSG:4326 EPSG:3857')}${box(-180, -90, 180, 90)}
      <Layer><Name>roads</Name><Title>Roads</Title>${box(10, 20, 30, 40)}</Layer>
      <Layer><Name>water</Name><Title>Water</Title>${srs('EPSG:3395')}
        <Layer><Title>Rivers</Title>${box(-10, -20, 0, 5)}</Layer>
      </Layer>
    </Layer>
  </Capability>
</${root.split(' ')[0]}>`
}

const EXCEPTION = `<?xml version="1.0"?>
<ServiceExceptionReport version="1.1.1"><ServiceException code="LayerNotDefined">Layer 'nope' is not defined
\u001b[31m here</ServiceException></ServiceExceptionReport>`

/** The colour of a GetMap answer for a box centred at (x, y). */
export const colourAt = (x: number, y: number): [number, number, number] => [x < 0 ? 200 : 0, y < 0 ? 200 : 0, 255]

export class WmsRemote {
  base = ''
  /** GetMap queries received, newest last (lower-cased names). */
  readonly maps: URLSearchParams[] = []
  /** Authorization headers of the `auth` mode's requests. */
  readonly auths: Array<string | undefined> = []
  /** GetCapabilities answers sent. */
  capabilities = 0
  /** `flaky` drops every connection while true. */
  down = false

  async start(): Promise<this> {
    const server = createServer((req, res) => this.#answer(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    server.unref()
    const addr = server.address()
    this.base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
    return this
  }

  /** The service URL of a connection behaving as `mode`, with a query of its own as real services have. */
  url(mode: WmsMode): string { return `${this.base}/${mode}/wms?map=test` }

  #answer(req: IncomingMessage, res: ServerResponse): void {
    const u = new URL(req.url ?? '/', 'http://x')
    const mode = u.pathname.split('/')[1] as WmsMode
    const cors: Record<string, string> = mode === 'nocors' ? {}
      : { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': '*' }
    if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return }
    if (mode === 'flaky' && this.down) { req.socket.destroy(); return }
    const q = new URLSearchParams([...u.searchParams].map(([k, v]) => [k.toLowerCase(), v]))
    const send = (status: number, type: string, body: string | Buffer) => res.writeHead(status, { ...cors, 'content-type': type }).end(body)
    if (mode === 'auth') {
      this.auths.push(req.headers.authorization)
      if (req.headers.authorization !== `Basic ${Buffer.from('wms:secret').toString('base64')}`) return void send(401, 'text/plain', 'login')
    }
    switch (mode) {
      case 'exception': return void send(200, 'application/vnd.ogc.se_xml', EXCEPTION)
      case 'html': return void send(200, 'text/html; charset=utf-8', `<!DOCTYPE html><html><body>Sign in: ${WMS_SECRET}</body></html>`)
      case 'huge': res.writeHead(200, { ...cors, 'content-type': 'image/png', 'content-length': String(400 * 1024 * 1024) }); res.write(Buffer.alloc(1024)); return
      case 'silent': return
      default: break
    }
    if (q.get('map') !== 'test') return void send(400, 'text/plain', 'the service URL lost its own query')
    const request = q.get('request')?.toLowerCase()
    if (request === 'getcapabilities') return void (this.capabilities++, send(200, 'application/vnd.ogc.wms_xml', caps(q.get('version') ?? '1.1.1')))
    if (request !== 'getmap') return void send(400, 'text/plain', 'unknown request')
    this.maps.push(q)
    const version = q.get('version')
    const crs = q.get(version === '1.3.0' ? 'crs' : 'srs')
    const b = (q.get('bbox') ?? '').split(',').map(Number)
    const [x0, y0, x1, y1] = version === '1.3.0' && crs === 'EPSG:4326' ? [b[1]!, b[0]!, b[3]!, b[2]!] : b as [number, number, number, number]
    const w = Number(q.get('width')), h = Number(q.get('height'))
    if (q.get('layers') === 'empty') { res.writeHead(204, cors).end(); return }
    if (q.get('layers') === 'nope') return void send(200, 'application/vnd.ogc.se_xml', EXCEPTION)
    const png = new PNG({ width: w, height: h })
    const [r, g, bl] = colourAt((x0 + x1) / 2, (y0 + y1) / 2)
    for (let i = 0; i < w * h; i++) { png.data[i * 4] = r; png.data[i * 4 + 1] = g; png.data[i * 4 + 2] = bl; png.data[i * 4 + 3] = 255 }
    send(200, 'image/png', PNG.sync.write(png))
  }
}

let shared: Promise<WmsRemote> | undefined
/** The process's test WMS, started on first use. */
export const wmsRemote = () => (shared ??= new WmsRemote().start())
