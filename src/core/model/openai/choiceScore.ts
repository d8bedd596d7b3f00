/**
 * The probability of each option of a choice over an endpoint, from top log-probabilities: one
 * one-token request at the choice point gives the first token's distribution, and each token that
 * starts some option's remaining text leads to one more request from there. An option's
 * probability sums every path of listed tokens that spells it exactly; a path through a token
 * outside the top-k is lost, so the sum is a lower bound, and the options are renormalised.
 */

/** The top tokens after `context` (appended to the choice point), as text -> natural-log probability. */
export type TopLogprobs = (context: string) => Promise<Map<string, number>>;

interface Member {
  option: number;
  /** What is left of the option's text after the node's context. */
  rest: string;
}

interface Node {
  context: string;
  logprob: number;
  members: Member[];
}

export interface EndpointChoiceScore {
  /** Unnormalised probability of each option (0 where no path was in the top-k). */
  probabilities: number[];
  /** One-token requests made. */
  requests: number;
}

/**
 * Scores `texts` (each option's text as it is to be written, a leading space or a terminator
 * included) from the choice point. `maxRequests` bounds the tree for long options.
 */
export async function scoreOptions(
  texts: string[],
  top: TopLogprobs,
  maxRequests = 64,
): Promise<EndpointChoiceScore> {
  const probabilities = texts.map(() => 0);
  let requests = 0;
  const queue: Node[] = [
    { context: '', logprob: 0, members: texts.map((rest, option) => ({ option, rest })) },
  ];
  while (queue.length > 0 && requests < maxRequests) {
    const node = queue.shift()!;
    const ended = node.members.filter((m) => m.rest === '');
    const going = node.members.filter((m) => m.rest !== '');
    if (going.length === 0) {
      for (const m of ended) probabilities[m.option] += Math.exp(node.logprob);
      continue;
    }
    const listed = await top(node.context);
    requests++;
    // An option that ends here means exactly its text: going on into a longer option is not its own mass.
    let away = 0;
    for (const [token, lp] of listed) {
      if (token !== '' && going.some((m) => m.rest.startsWith(token) || token.startsWith(m.rest)))
        away += Math.exp(lp);
    }
    for (const m of ended) probabilities[m.option] += Math.exp(node.logprob) * Math.max(0, 1 - away);
    const children = new Map<string, Member[]>();
    const follow = (token: string, member: Member) => {
      const list = children.get(token) ?? [];
      list.push(member);
      children.set(token, list);
    };
    for (const m of going) {
      for (const [token, lp] of listed) {
        if (token === '') continue;
        const longer = going.some((o) => o.rest.length > token.length && o.rest.startsWith(token));
        if (token === m.rest && longer) follow(token, { option: m.option, rest: '' });
        else if (token.startsWith(m.rest)) probabilities[m.option] += Math.exp(node.logprob + lp);
        else if (m.rest.startsWith(token))
          follow(token, { option: m.option, rest: m.rest.slice(token.length) });
      }
    }
    for (const [token, members] of children) {
      queue.push({ context: node.context + token, logprob: node.logprob + listed.get(token)!, members });
    }
  }
  return { probabilities, requests };
}

/** Probabilities renormalised over the options; uniform when none had any mass. */
export function renormalise(probabilities: number[]): { distribution: number[]; mass: number } {
  const mass = probabilities.reduce((s, p) => s + p, 0);
  if (!(mass > 0)) return { distribution: probabilities.map(() => 1 / probabilities.length), mass: 0 };
  return { distribution: probabilities.map((p) => p / mass), mass };
}
