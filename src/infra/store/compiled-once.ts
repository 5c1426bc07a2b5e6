import type { CompiledQuery } from 'kysely';

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
