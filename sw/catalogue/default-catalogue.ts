/**
 * @module catalogue/default-catalogue
 * The catalogue a fresh installation starts with: a few public basemaps whose providers allow
 * general use with attribution, written for this project (no record comes from the QMS data
 * set, which is GPL). Icons are drawn here, so the product ships no third-party logo.
 */
import { encodeRgba } from '../image/png.ts'
import type { CatalogueData, Detail } from './records.ts'

const T0 = '2026-01-01T00:00:00Z'
/** Global basemaps cover the Web Mercator world, so a map-extent search finds them anywhere. */
const WORLD = { boundary: 'SRID=4326;MULTIPOLYGON (((-180 -85.06, 180 -85.06, 180 85.06, -180 85.06, -180 -85.06)))', boundary_area: 61221.6 }
const OSM_COPYRIGHT = { copyright_text: '© OpenStreetMap contributors', copyright_url: 'https://www.openstreetmap.org/copyright' }
const ODBL = { license_name: 'Open Database License (ODbL)', license_url: 'https://opendatacommons.org/licenses/odbl/' }

function tms(id: number, guid: string, name: string, url: string, icon: number, extra: Detail): Detail {
  return { id, guid, name, desc: null, type: 'tms', epsg: 3857, url, z_min: 0, z_max: 19, y_origin_top: true, icon,
    created_at: T0, updated_at: T0, ...WORLD, ...extra }
}

export const DEFAULT_SERVICES: Detail[] = [
  tms(1, '0d9c4f2e-6a51-4a8e-9b7a-1f3c2e5d7a01', 'OpenStreetMap Standard', 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', 1, {
    desc: 'The standard map style of openstreetmap.org. Heavy use is not allowed: see the tile usage policy.',
    ...ODBL, ...OSM_COPYRIGHT, terms_of_use_url: 'https://operations.osmfoundation.org/policies/tiles/' }),
  tms(2, '0d9c4f2e-6a51-4a8e-9b7a-1f3c2e5d7a02', 'OpenTopoMap', 'https://{switch:a,b,c}.tile.opentopomap.org/{z}/{x}/{y}.png', 2, {
    desc: 'Topographic map from OpenStreetMap data and SRTM elevation.', z_max: 17,
    license_name: 'CC-BY-SA 3.0', license_url: 'https://creativecommons.org/licenses/by-sa/3.0/',
    copyright_text: 'Map data © OpenStreetMap contributors, SRTM | Map style © OpenTopoMap (CC-BY-SA)',
    copyright_url: 'https://opentopomap.org/about', terms_of_use_url: 'https://opentopomap.org/about' }),
  tms(3, '0d9c4f2e-6a51-4a8e-9b7a-1f3c2e5d7a03', 'OpenStreetMap Humanitarian', 'https://{switch:a,b}.tile.openstreetmap.fr/hot/{z}/{x}/{y}.png', 3, {
    desc: 'Humanitarian style by the Humanitarian OpenStreetMap Team, hosted by OpenStreetMap France.',
    ...ODBL, copyright_text: '© OpenStreetMap contributors, tiles style by Humanitarian OpenStreetMap Team hosted by OpenStreetMap France',
    copyright_url: 'https://www.openstreetmap.org/copyright', terms_of_use_url: 'https://www.openstreetmap.fr/' }),
  tms(4, '0d9c4f2e-6a51-4a8e-9b7a-1f3c2e5d7a04', 'CyclOSM', 'https://{switch:a,b,c}.tile-cyclosm.openstreetmap.fr/cyclosm/{z}/{x}/{y}.png', 4, {
    desc: 'Bicycle-oriented map from OpenStreetMap data.', z_max: 20, ...ODBL,
    copyright_text: '© OpenStreetMap contributors, CyclOSM', copyright_url: 'https://www.cyclosm.org/',
    terms_of_use_url: 'https://www.cyclosm.org/' }),
  { id: 5, guid: '0d9c4f2e-6a51-4a8e-9b7a-1f3c2e5d7a05', name: 'OpenStreetMap WMS (terrestris)', desc: 'OpenStreetMap rendered as a WMS by terrestris.',
    type: 'wms', epsg: null, url: 'https://ows.terrestris.de/osm/service', params: 'format=image/png', layers: 'OSM-WMS',
    turn_over: false, format: 'image/png', icon: 5, created_at: T0, updated_at: T0, ...WORLD, ...ODBL,
    copyright_text: '© terrestris GmbH & Co. KG, data © OpenStreetMap contributors', copyright_url: 'https://www.terrestris.de/',
    terms_of_use_url: 'https://www.terrestris.de/en/openstreetmap-wms/' },
  { id: 6, guid: '0d9c4f2e-6a51-4a8e-9b7a-1f3c2e5d7a06', name: 'NASA Blue Marble (GIBS)', desc: 'Shaded relief and bathymetry from NASA Global Imagery Browse Services.',
    type: 'wms', epsg: 3857, url: 'https://gibs.earthdata.nasa.gov/wms/epsg3857/best/wms.cgi', params: 'format=image/jpeg',
    layers: 'BlueMarble_ShadedRelief_Bathymetry', turn_over: false, format: 'image/jpeg', icon: 6, created_at: T0, updated_at: T0, ...WORLD,
    license_name: 'Public domain (NASA)', license_url: 'https://earthdata.nasa.gov/learn/use-data/data-use-policy',
    copyright_text: 'Imagery courtesy of NASA EOSDIS GIBS', copyright_url: 'https://earthdata.nasa.gov/eosdis/science-system-description/eosdis-components/gibs',
    terms_of_use_url: 'https://earthdata.nasa.gov/learn/use-data/data-use-policy' },
]

/** A disc of `color` on transparent ground with a lighter ring: the built-in icons. */
function disc(size: number, color: [number, number, number], meridians = false): Uint8Array {
  const data = new Uint8Array(size * size * 4)
  const c = (size - 1) / 2, r = size / 2 - 1
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - c, y - c)
      const o = (y * size + x) * 4
      if (d > r) continue
      const edge = d > r - size / 12
      // A globe's grid for the default icon: the equator and two meridian ellipses.
      const grid = meridians && (Math.abs(y - c) < size / 40 || Math.abs(x - c) < size / 40
        || Math.abs(Math.hypot((x - c) / 0.5, y - c) - r) < size / 25)
      const k = edge || grid ? 0.6 : 1
      data[o] = Math.round(color[0] * k); data[o + 1] = Math.round(color[1] * k); data[o + 2] = Math.round(color[2] * k)
      data[o + 3] = 255
    }
  }
  return encodeRgba({ width: size, height: size, data })
}

const COLORS: Array<[number, number, number]> = [[126, 180, 120], [196, 160, 110], [220, 90, 70], [80, 150, 210], [150, 120, 200], [40, 70, 140]]

/** The default catalogue, icons drawn on each call (cheap: six 64 px discs). */
export function defaultCatalogue(): CatalogueData {
  const icons = DEFAULT_SERVICES.map((s, i) => ({ id: s.icon as number, guid: `7f1e0b6c-2d3a-4c5b-8e9f-a0b1c2d3e4${String(i + 1).padStart(2, '0')}`,
    name: String(s.name).toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, ''), png: disc(64, COLORS[i % COLORS.length]!) }))
  return { services: DEFAULT_SERVICES, statuses: [], icons, defaultIcon: builtinDefaultIcon() }
}

/** The default icon: a grey globe, 100 × 100 RGBA like the original's. */
export function builtinDefaultIcon(): Uint8Array {
  return disc(100, [160, 170, 180], true)
}
