/** The sync benchmark's team layer, shared by sync.bench.ts and ab-pull.ts: 10,000 points with three fields. */
export const N = 10_000
export const FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }, { keyname: 'day', datatype: 'DATE' }]

/** `n` points, a layer's worth; `seed` shifts them so that each run's layer differs. */
export const points = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ({
  geom: `POINT(${4e6 + (i % 1000) * 10} ${7.5e6 + Math.floor(i / 1000) * 10 + seed})`,
  fields: { name: `f${seed}-${i}`, n: i, day: `2024-0${1 + (i % 9)}-1${i % 10}` } }))
