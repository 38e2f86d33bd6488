/**
 * @module feature/transaction/routes
 * `feature_layer.transaction.*` (reference §12): start a transaction (`epoch` required on a
 * versioned layer), put operations by sequence number, commit, read the results, dispose.
 * A transaction belongs to the user who started it; anyone else gets 404.
 */
import { json, readJson, readJsonObject } from '../../core/http.ts'
import { onPath, type RequestContext, type Routes } from '../../core/routes.ts'
import { expectKind } from '../../core/validate.ts'
import type { FeatureVariables } from '../env.ts'
import { writableLayerOf } from '../layer.ts'
import type { FeatureLayer } from '../types.ts'
import type { TransactionRecord } from '../history-types.ts'
import {
  epochRequired, transactionCommitted, transactionNotCommitted, transactionNotFound, transactionOperationConflict, transactionsUnsupported,
} from '../versioning/errors.ts'
import { checkEpoch } from '../versioning/params.ts'
import { parseItems } from './ops.ts'
import { commitTransaction } from './service.ts'

type Ctx = RequestContext<FeatureVariables>

/** The layer's history, where transactions are kept; 422 for a class that keeps none. */
function historyOf<H>(history: H | undefined): H {
  if (!history) throw transactionsUnsupported()
  return history
}

const naiveNow = (c: Ctx) => c.get('services').platform.now().toISOString().slice(0, 19)

/** The transaction `{tid}` of the layer, if it is the caller's. */
async function transactionOf(c: Ctx, layer: FeatureLayer): Promise<TransactionRecord> {
  const tid = Number(c.req.param('tid'))
  const rec = await layer.read((tx) => historyOf(tx.history).transaction(tid))
  if (!rec || rec.userId !== c.get('user').id) throw transactionNotFound()
  return rec
}

export function mountTransaction(routes: Routes<FeatureVariables>): void {
  routes.add('feature_layer.transaction.collection', '/api/resource/{id}/feature/transaction/', 'POST', onPath('data', 'write'), async (c) => {
    const layer = await writableLayerOf(c)
    const body = await readJsonObject(c.req.raw)
    const epoch = body.epoch === undefined ? undefined : expectKind<number>('int', body.epoch, '$.epoch')
    const user = c.get('user').id
    const rec = await layer.write(async (tx) => {
      const h = historyOf(tx.historyWrite)
      const state = await h.versioning()
      if (state) {
        if (epoch === undefined) throw epochRequired()
        checkEpoch(state, epoch)
      }
      return h.startTransaction(user, epoch ?? null, naiveNow(c))
    }, { userId: user })
    return json({ id: rec.id, started: rec.started })
  })

  routes.add('feature_layer.transaction.item', '/api/resource/{id}/feature/transaction/{tid}',
    ['GET', 'PUT', 'POST', 'DELETE'], onPath('data', 'write'), async (c) => {
      const layer = await writableLayerOf(c)
      const body = c.req.method === 'PUT' ? await readJson(c.req.raw) : undefined
      const rec = await transactionOf(c, layer)
      switch (c.req.method) {
        case 'GET': {
          if (!rec.committed) throw transactionNotCommitted()
          const results = await layer.read((tx) => historyOf(tx.history).transactionResults(rec.id))
          return json(results.map(([seq, value]) => [seq, JSON.parse(value)]))
        }
        case 'PUT': {
          if (rec.committed) throw transactionCommitted()
          const items = parseItems(body, layer.meta)
          await layer.write(async (tx) => {
            const refused = await historyOf(tx.historyWrite).putTransactionOps(rec.id, items)
            if (refused !== undefined) throw transactionOperationConflict(refused)
          })
          return json(null)
        }
        case 'POST':
          return json(await commitTransaction(c.get('services'), layer, rec.id, c.get('user').id, naiveNow(c)))
        default:
          await layer.write((tx) => historyOf(tx.historyWrite).disposeTransaction(rec.id))
          return json(null)
      }
    })
}
