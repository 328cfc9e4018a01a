import type { KyselyPlugin, RootOperationNode } from 'kysely';

/**
 * Counts the statements a piece of code runs, each labelled by what it does: its kind and table
 * (`InsertQueryNode events`), or the start of its SQL for raw statements. Install `plugin` on the
 * Kysely instance under test (`kysely.withPlugin(counter.plugin)`); the driver's own BEGIN and
 * COMMIT are not seen.
 */
export interface QueryCounter {
  plugin: KyselyPlugin;
  labels: string[];
}

export function labelOf(node: RootOperationNode): string {
  if (node.kind === 'RawNode') return node.sqlFragments.join('?').replace(/\s+/g, ' ').slice(0, 40);
  // the first identifier of a built query is its table (insert into, update, delete from, select from)
  const table = /"name":"(\w+)"/.exec(JSON.stringify(node));
  return `${node.kind} ${table?.[1] ?? '?'}`;
}

export function queryCounter(): QueryCounter {
  const labels: string[] = [];
  return {
    labels,
    plugin: {
      transformQuery: (args) => (labels.push(labelOf(args.node)), args.node),
      transformResult: async (args) => args.result,
    },
  };
}
