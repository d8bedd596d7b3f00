/** The prompts of bench/generate.ts: one for decode speed, one of 300 tokens for time to first token, 20 for agreement. */
import type { ChatMessage } from '../src/core/model/types';

export const SPEED_PROMPT: ChatMessage[] = [
  { role: 'user', content: 'Explain step by step why the sum of two even numbers is even.' },
];

/** Text long enough to cut a 300-token prompt from, for any of the tokenizers. */
export const LONG_TEXT = `## Problem
Let $n$ be a positive integer. Prove that $n^3 - n$ is divisible by $6$ for every $n$.

## Solution
1. Factor the expression: $n^3 - n = n(n^2 - 1) = (n - 1)\\,n\\,(n + 1)$, the product of three consecutive integers.
2. Among any two consecutive integers one is even, so the product is divisible by $2$.
3. Among any three consecutive integers exactly one is a multiple of $3$, so the product is divisible by $3$.
4. Since $\\gcd(2, 3) = 1$, a number divisible by both $2$ and $3$ is divisible by $6$.
5. Therefore $6 \\mid n^3 - n$ for every positive integer $n$. $\\blacksquare$

## Code
\`\`\`python
def is_divisible_by_six(n: int) -> bool:
    """Return True when n^3 - n is a multiple of 6 (it always is)."""
    value = n ** 3 - n
    return value % 6 == 0


def check(limit: int = 1000) -> None:
    for n in range(1, limit):
        assert is_divisible_by_six(n), n
    print("all good up to", limit)
\`\`\`

## Self Evaluation
The factorisation in step 1 is exact; steps 2 and 3 use the pigeonhole principle on residues; step 4
combines them because the two moduli are coprime. Every step follows from the one before it, and the
code checks the claim numerically for the first thousand integers, which agrees with the proof. A
second proof goes by induction: for $n = 1$ the value is $0$; and $(n+1)^3 - (n+1) - (n^3 - n) = 3n(n+1)$,
which is a multiple of $6$ because $n(n+1)$ is even. Both arguments reach the same conclusion, and the
first one generalises: the product of $k$ consecutive integers is divisible by $k!$.`;

/** Twenty varied requests: mathematics, proofs, code, tests, explanations. */
export const AGREEMENT_PROMPTS: string[] = [
  'Prove that the square of an odd integer is odd.',
  'Write a Python function that returns the n-th Fibonacci number iteratively.',
  'What is the derivative of x^3 sin(x)? Show the steps.',
  'Solve for x: 3x + 7 = 22.',
  'Explain what a hash map is and when to use one.',
  'Write pytest tests for a function add(a, b) that adds two numbers.',
  'Prove by induction that 1 + 2 + ... + n = n(n+1)/2.',
  'Write a TypeScript function that reverses a string.',
  'How many prime numbers are there between 1 and 30? List them.',
  'Explain the difference between a list and a tuple in Python.',
  'Compute the greatest common divisor of 84 and 36 with the Euclidean algorithm.',
  'Write a function that checks whether a string is a palindrome, ignoring case.',
  'Is the sum of two rational numbers always rational? Prove your answer.',
  'Write a SQL query that returns the ten most recent orders.',
  'What is the probability of rolling two sixes with two fair dice?',
  'Write a Python class for a stack with push, pop and peek.',
  'Show that sqrt(2) is irrational.',
  'Explain big-O notation with an example.',
  'Write a bash one-liner that counts the lines of all .py files in a folder.',
  'Find all real solutions of x^2 - 5x + 6 = 0 and check them.',
];
