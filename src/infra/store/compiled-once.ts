import type { CompiledQuery, Insertable } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/** What a Kysely builder becomes once compiled. */
interface Compilable<Row> {
  compile(): CompiledQuery<Row>;
}

/**
 * A query of the hottest paths (the API-key lookup, a task poll) built and compiled by Kysely once
 * instead of on every call (building and compiling the tree was about a quarter of a poll's CPU).
 * `build` receives a placeholder for each argument; each call swaps in the real values. The SQL
 * text is then the same every time, which also lets the statement cache under the SQLite dialect
 * reuse one prepared statement. Placeholders must only be used as bound values (not in `in` lists
 * whose length varies: compile one query per length instead).
 */
export function compiledOnce<Args extends readonly unknown[], Row>(
  arity: Args['length'],
  build: (...placeholders: Args) => Compilable<Row>,
): (...args: Args) => CompiledQuery<Row> {
  let template: { compiled: CompiledQuery<Row>; slots: number[] } | undefined;
  return (...args) => {
    if (template === undefined) {
      // Unique objects, so a constant parameter of the query can never be mistaken for one.
      const placeholders = Array.from({ length: arity }, () => Symbol('placeholder'));
      const compiled = build(...(placeholders as unknown as Args)).compile();
      const slots = compiled.parameters.map((value) => placeholders.indexOf(value as symbol));
      if (slots.filter((slot) => slot >= 0).length !== arity)
        throw new Error('compiledOnce: every placeholder must be bound exactly once');
      template = { compiled, slots };
    }
    const { compiled, slots } = template;
    return {
      ...compiled,
      parameters: slots.map((slot, i) => (slot >= 0 ? args[slot] : compiled.parameters[i])),
    };
  };
}

/** Lists longer than this are built per call: a compiled query is kept for each length up to it. */
const MOST_KEPT_LENGTH = 64;

/**
 * `compiledOnce` for a query over a list of values (an `in` list: the ids of a batch), one compiled
 * query per list length: `build` receives the fixed arguments' placeholders and one placeholder per
 * list item. Lists longer than 64 items are compiled per call (a query for each length would be kept
 * forever).
 */
export function compiledPerLength<Fixed extends readonly unknown[], Item, Row>(
  fixedArity: Fixed['length'],
  build: (fixed: Fixed, items: Item[]) => Compilable<Row>,
): (fixed: Fixed, items: readonly Item[]) => CompiledQuery<Row> {
  const byLength = new Map<number, (...args: unknown[]) => CompiledQuery<Row>>();
  return (fixed, items) => {
    if (items.length > MOST_KEPT_LENGTH) return build(fixed, [...items]).compile();
    let query = byLength.get(items.length);
    if (query === undefined) {
      query = compiledOnce(fixedArity + items.length, (...args: unknown[]) =>
        build(args.slice(0, fixedArity) as unknown as Fixed, args.slice(fixedArity) as Item[]),
      );
      byLength.set(items.length, query);
    }
    return query(...fixed, ...items);
  };
}

/**
 * Inserts of rows into `table` compiled once per shape — the count of rows and the columns they set
 * (a row's optional columns change it; every row of one insert sets the same ones) —, not built by
 * Kysely per insert: a generate request's generation and tasks.
 */
export function compiledInserts<T extends keyof Database & string>(db: Db, table: T) {
  const byShape = new Map<string, (...values: unknown[]) => CompiledQuery<unknown>>();
  return (rows: ReadonlyArray<Insertable<Database[T]>>): CompiledQuery<unknown> => {
    const [first] = rows;
    if (first === undefined) throw new Error(`compiledInserts: no rows to insert into ${table}`);
    const set = (row: object) =>
      Object.keys(row).filter((column) => row[column as keyof typeof row] !== undefined);
    const columns = set(first);
    const shape = `${rows.length}:${columns.join(',')}`;
    if (rows.some((row) => set(row).join(',') !== columns.join(',')))
      throw new Error(`compiledInserts: the rows into ${table} set different columns`);
    let query = byShape.get(shape);
    if (query === undefined) {
      query = compiledOnce(rows.length * columns.length, (...values: unknown[]) =>
        db
          .insertInto(table)
          .values(
            rows.map((_, r) =>
              Object.fromEntries(columns.map((column, c) => [column, values[r * columns.length + c]])),
            ) as never,
          ),
      );
      byShape.set(shape, query);
    }
    return query(...rows.flatMap((row) => columns.map((column) => row[column as keyof typeof row])));
  };
}
