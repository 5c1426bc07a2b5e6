/**
 * The server's vocabulary the website's features use (task statuses, money, tiers, asset kinds): one
 * door to `src/base/domain`, so only the app-wide layer reaches into the server's code beside the
 * wire shapes of the contract.
 */
export type { AssetKind } from '../../../src/base/domain/asset-kinds';
export { formatUsd, MICROS_PER_UNIT, parseUsd } from '../../../src/base/domain/money';
export { isFinalStatus } from '../../../src/base/domain/task-status';
export { TIERS } from '../../../src/base/domain/tiers';
