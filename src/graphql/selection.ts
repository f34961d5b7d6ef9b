import { Kind, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether a connection field asks for `pageInfo { totalRecords }`, through fragments too: only
 * then are records counted, which costs a query of its own, as Elide does.
 */
export function asksForTotal(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.some((node) => {
    const pageInfo = fieldsNamed(node.selectionSet, 'pageInfo', info.fragments);
    return pageInfo.some((field) => fieldsNamed(field, 'totalRecords', info.fragments).length > 0);
  });
}

/** The selection sets of the fields called `name` directly in a selection set, looking into fragments. */
function fieldsNamed(
  selectionSet: SelectionSetNode | undefined,
  name: string,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  seen: Set<string> = new Set(),
): (SelectionSetNode | undefined)[] {
  const found: (SelectionSetNode | undefined)[] = [];
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === name) found.push(selection.selectionSet);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      found.push(...fieldsNamed(selection.selectionSet, name, fragments, seen));
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      found.push(...fieldsNamed(fragments[selection.name.value]?.selectionSet, name, fragments, seen));
    }
  }
  return found;
}
