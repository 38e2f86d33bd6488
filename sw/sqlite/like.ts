/**
 * @module sqlite/like
 * LIKE patterns as SQLite GLOB, for the case-sensitive `__like` filters (the resource search
 * here, the feature filters once WP-C moves them into sw/sqlite). The function itself still
 * lives in core/text.ts because vector_layer/reader.ts, outside sw/sqlite, uses it until then;
 * the final step of issue 22 moves its body here.
 */
export { likeToGlob } from '../core/text.ts'
