// GDAL (gdal3.js) in a worker thread of the test process, for `export-read.ts`: its start
// and its synchronous work then never block the Node host under test (same process), and its
// global state is not the host's own GDAL. Message in: {id, bytes, name}; out: {id, layers} or {id, error}.
import { parentPort } from 'node:worker_threads'
import { createRequire } from 'node:module'
import { dirname, relative } from 'node:path'

const require = createRequire(import.meta.url)
const entry = require.resolve('gdal3.js/node.js')
const gdal = require('gdal3.js/node.js')({
  path: relative(process.cwd(), `${dirname(entry)}/dist/package`) || '.', useWorker: false, logHandler: () => {}, errorHandler: () => {},
})
let serial = 0

async function read(bytes, name) {
  const g = await gdal
  const fs = g.Module.FS
  const dir = `/input/test-read-${++serial}`
  if (!fs.analyzePath('/input').exists) fs.mkdir('/input')
  fs.mkdir(dir)
  fs.writeFile(`${dir}/${name}`, bytes)
  const { datasets, errors } = await g.open(`${dir}/${name}`, [], name.endsWith('.zip') ? ['vsizip'] : [])
  const ds = datasets[0]
  if (!ds) throw new Error(`GDAL could not open ${name}: ${JSON.stringify(errors)}`)
  try {
    const info = await g.ogrinfo(ds)
    const out = []
    for (const l of info.layers) {
      let raw = '{"features":[]}'
      // GDAL writes no file for an empty layer.
      if (l.featureCount > 0) {
        // GDAL-WASM has no threads: ogr2ogr's Arrow path (a reader thread for GeoPackage) fails.
        const args = ['--config', 'OGR2OGR_USE_ARROW_API', 'NO', '-f', 'GeoJSON', '-preserve_fid', '-lco', 'RFC7946=NO', l.name]
        const res = await g.ogr2ogr(ds, args, `test-read-${++serial}`)
          .catch((err) => { throw new Error(`GDAL could not convert layer ${l.name} of ${name}: ${JSON.stringify(err)}`) })
        raw = new TextDecoder().decode(await g.getFileBytes(res.local))
        fs.unlink(res.local)
      }
      const code = l.geometryFields[0]?.coordinateSystem?.projjson?.id?.code
      out.push({ name: l.name, srs: code ? `EPSG:${code}` : undefined, fields: l.fields.map((f) => ({ name: f.name, type: f.type })),
        features: JSON.parse(raw).features, raw })
    }
    return out
  } finally {
    await g.close(ds)
    for (const f of fs.readdir(dir)) if (f !== '.' && f !== '..') fs.unlink(`${dir}/${f}`)
    fs.rmdir(dir)
  }
}

parentPort.on('message', ({ id, bytes, name }) => {
  read(bytes, name).then((layers) => parentPort.postMessage({ id, layers }),
    (err) => parentPort.postMessage({ id, error: String(err?.message ?? err) }))
})
