/** A media type as a header gives it: its essence in lower case, and its parameters by lower-case name. */
export interface MediaType {
  essence: string;
  parameters: Map<string, string>;
}

/** One media range of an Accept header: a media type and its weight (`q`, 1 when absent; 0 refuses it). */
export interface MediaRange extends MediaType {
  weight: number;
}

/**
 * One media type of a header (`type/subtype; name=value; name="quoted value"`): its essence in
 * lower case and its parameters by lower-case name. Undefined when it does not parse.
 */
export function parseMediaType(text: string): MediaType | undefined {
  const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*/.exec(text);
  if (match?.[1] === undefined) return undefined;
  const parameters = new Map<string, string>();
  const parameter = /;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=("(?:[^"\\]|\\.)*"|[!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*/y;
  parameter.lastIndex = match[0].length;
  while (parameter.lastIndex < text.length) {
    const found = parameter.exec(text);
    if (found?.[1] === undefined || found[2] === undefined) return undefined;
    const value = found[2].startsWith('"') ? found[2].slice(1, -1).replace(/\\(.)/g, '$1') : found[2];
    parameters.set(found[1].toLowerCase(), value);
  }
  return { essence: match[1].toLowerCase(), parameters };
}

/**
 * The media ranges of an Accept header, split at the commas outside quotes; undefined for one that
 * does not parse. The weight `q`, and whatever follows it, are no parameters of the media type.
 */
export function acceptedMediaRanges(header: string): (MediaRange | undefined)[] {
  return (header.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []).map((text) => {
    const type = parseMediaType(text);
    if (type === undefined) return undefined;
    const parameters = new Map<string, string>();
    let weight: number | undefined;
    for (const [name, value] of type.parameters) {
      if (name === 'q' && weight === undefined) weight = Number(value);
      else if (weight === undefined) parameters.set(name, value);
    }
    return { essence: type.essence, parameters, weight: weight === undefined || Number.isNaN(weight) ? 1 : weight };
  });
}
