import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  answersEquivalent,
  boxedContents,
  finalBoxedAnswer,
  normalizeAnswer,
} from '../../../src/core/math/answers';

/** [model answer, reference answer, equivalent?, why]: most references are MATH-500 answers. */
const PAIRS: [string, string, boolean, string][] = [
  // Fractions and numeric forms
  ['1/2', '\\frac{1}{2}', true, 'slash fraction'],
  ['0.5', '\\frac12', true, 'decimal vs brace-less \\frac'],
  ['\\dfrac{1}{2}', '\\tfrac{1}{2}', true, '\\dfrac and \\tfrac'],
  ['\\frac 34', '0.75', true, '\\frac with a space before its digits'],
  ['\\frac9{19}', '\\frac{9}{19}', true, 'mixed brace forms'],
  ['\\frac{-3}{8}', '-\\frac{3}{8}', true, 'sign inside or outside'],
  ['-0.375', '-\\frac{3}{8}', true, 'negative decimal'],
  ['1.25', '\\frac{5}{4}', true, 'exact decimal'],
  ['.0000672', '6.72 \\times 10^{-5}', true, 'scientific notation'],
  ['1.5\\times10^3', '1500', true, 'times ten to a power'],
  ['2^{10}', '1024', true, 'power'],
  ['0.333', '\\frac{1}{3}', false, 'a rounded decimal is not the fraction'],
  ['\\frac{2}{1}', '\\frac{1}{2}', false, 'inverted fraction'],
  ['3', '-3', false, 'sign'],
  ['10^{-3}', '10^3', false, 'exponent sign'],
  ['1\\frac{4}{5}', '\\frac{9}{5}', true, 'mixed number'],
  ['137.5', '137 \\frac{1}{2}', true, 'mixed number with a space'],
  ['\\frac{1}{2}', '2\\frac{1}{2}', false, 'mixed number is not a product'],
  // Radicals and constants
  ['2\\sqrt{2}', '\\sqrt{8}', true, 'simplified radical'],
  ['\\sqrt8', '2 \\sqrt 2', true, 'brace-less roots'],
  ['\\frac{1}{\\sqrt{3}}', '\\frac{\\sqrt{3}}{3}', true, 'rationalised denominator'],
  ['\\sqrt{3}/3', '\\frac{\\sqrt{3}}{3}', true, 'radical over a slash'],
  ['\\sqrt[3]{-8}', '-2', true, 'real cube root'],
  ['\\sqrt{2}', '2', false, 'root vs radicand'],
  ['2 \\pi', '2\\pi', true, 'spacing before \\pi'],
  ['18+2π', '18+2\\pi', true, 'unicode pi'],
  ['3.14', '\\pi', false, 'an approximation of pi is not pi'],
  ['\\frac{20000}{\\pi}', '20000/\\pi', true, 'pi in a denominator'],
  // Complex numbers and algebra
  ['9i+6', '6+9i', true, 'complex number, terms reordered'],
  ['(1+i)^2', '2i', true, 'complex arithmetic'],
  ['1-12i', '1+12i', false, 'conjugate'],
  ['2(k+1)', '2k+2', true, 'factored polynomial'],
  ['(x+1)^2', 'x^2+2x+1', true, 'expanded square'],
  ['\\frac{x^9-1}{x-1}', 'x^8 + x^7 + x^6 + x^5 + x^4 + x^3 + x^2 + x + 1', true, 'geometric sum'],
  ['x^2', '2x', false, 'different polynomials'],
  ['\\frac{\\cos x}{\\sin x}', '\\cot x', true, 'trigonometric identity'],
  ['|x|', 'x', false, 'absolute value differs for negatives'],
  ['3r^2', '3R^2', false, 'variable case matters'],
  ['(b+2)(a+5)', '(a+5)(b+2)', true, 'factors reordered'],
  // Equations and named values
  ['y=2x+3', 'y = 2x + 3', true, 'equation spacing'],
  ['2x+3', 'y = 2x + 3', true, 'value of a named line'],
  ['x = 5', '5', true, 'named value'],
  ['y = 2x - 3', 'y = 2x + 3', false, 'different line'],
  // Units, degrees, money, percent, thousands
  ['5.4', '5.4 \\text{ cents}', true, 'unit in \\text'],
  ['15', '15\\mbox{ cm}^2', true, 'unit in \\mbox with a power'],
  ['12 square units', '12', true, 'plain-word unit'],
  ['18.9', '\\$18.90', true, 'dollars and trailing zero'],
  ['\\$32,348', '\\$32,\\!348', true, 'thousands separator with \\!'],
  ['10080', '10,\\!080', true, 'thousands separator removed'],
  ['58500', '58,500', true, 'plain thousands separator'],
  ['1\\,000', '1000', true, 'thin-space thousands separator'],
  ['25\\%', '25', true, 'percent sign'],
  ['30', '30^\\circ', true, 'degrees as a unit'],
  ['145^{\\circ}', '145^\\circ', true, 'braced degree sign'],
  ['\\frac{\\pi}{6}', '30^\\circ', true, 'explicit degrees equal radians'],
  ['\\frac{\\pi}{6}', '30', false, 'no degrees said: 30 is not π/6'],
  ['\\frac{270}{7}', '\\frac{270}7\\text{ degrees}', true, 'degrees as a word'],
  ['38.57', '\\frac{270}7\\text{ degrees}', false, 'rounded degrees'],
  // Text and choices
  ['Evelyn', '\\text{Evelyn}', true, 'text answer'],
  ['\\textbf{even}', '\\text{even}', true, 'text command variants'],
  ['Even', '\\text{even}', true, 'case of a word'],
  ['B', '\\text{(B)}', true, 'multiple-choice letter'],
  ['(C)', '\\text{(B)}', false, 'other choice'],
  ['\\text{odd}', '\\text{even}', false, 'other word'],
  // Tuples, intervals, unions
  ['\\left( 3, \\frac{\\pi}{2} \\right)', '(3,\\frac{\\pi}{2})', true, '\\left/\\right and spacing'],
  ['(15, -29)', '(15,-29)', true, 'ordered pair spacing'],
  ['(-29,15)', '(15,-29)', false, 'ordered pair order matters'],
  ['(2, \\infty)', '(2,\\infty)', true, 'interval to infinity'],
  ['[2,\\infty)', '(2,\\infty)', false, 'closed vs open end'],
  ['(-∞, 0]', '(-\\infty, 0]', true, 'unicode infinity'],
  ['x \\in [-2,7]', '[-2, 7]', true, 'membership prefix'],
  [
    '\\left(\\frac35,\\frac83\\right]',
    '\\left(\\frac{3}{5},\\frac{8}{3}\\right]',
    true,
    'half-open interval',
  ],
  ['(3,\\infty)\\cup(-\\infty,2)', '(-\\infty, 2) \\cup (3, \\infty)', true, 'union in any order'],
  ['(-\\infty, 2) \\cup (3, \\infty)', '(-\\infty, 2] \\cup (3, \\infty)', false, 'union endpoint'],
  ['(1,-16,-4,43)', '(1,-16,-4,43)', true, 'quadruple'],
  [
    '3, \\frac{\\pi}{2}',
    '\\left( 3, \\frac{\\pi}{2} \\right)',
    true,
    'a point written without its parentheses',
  ],
  [
    '\\frac{\\pi}{2}, 3',
    '\\left( 3, \\frac{\\pi}{2} \\right)',
    false,
    'a bare list still keeps the tuple order',
  ],
  ['3, \\frac{\\pi}{2}', '[3, \\frac{\\pi}{2}]', false, 'a bare list is not a closed interval'],
  // Sets and lists of answers
  ['1, -2', '-2,1', true, 'list of solutions in any order'],
  ['7, 5, 3', '3, 5, 7', true, 'three solutions reordered'],
  ['3, 5', '3, 5, 7', false, 'a missing solution'],
  ['x=1 \\text{ or } x=-2', '-2,1', true, 'solutions joined by "or"'],
  ['1+\\sqrt{19}, 1-\\sqrt{19}', '1 \\pm \\sqrt{19}', true, 'plus-minus expands to two answers'],
  ['1 + \\sqrt{19}', '1 \\pm \\sqrt{19}', false, 'only one of the two'],
  ['\\{-2, 1-\\sqrt5, 1+\\sqrt5\\}', '\\{1\\pm\\sqrt{5},-2\\}', true, 'set with plus-minus'],
  ['3 - 2\\sqrt2, 3+2\\sqrt{2}', '3 \\pm 2 \\sqrt{2}', true, 'plus-minus with a coefficient'],
  // Matrices and vectors
  [
    '\\begin{pmatrix}-1&0\\\\0&-1\\end{pmatrix}',
    '\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}',
    true,
    'matrix spacing',
  ],
  [
    '\\begin{pmatrix} 0.2 \\\\ -3.6 \\end{pmatrix}',
    '\\begin{pmatrix} 1/5 \\\\ -18/5 \\end{pmatrix}',
    true,
    'matrix entries by value',
  ],
  ['(-18,-49,96)', '\\begin{pmatrix} -18 \\\\ -49 \\\\ 96 \\end{pmatrix}', true, 'vector as a tuple'],
  [
    '\\begin{pmatrix} -18 \\\\ 96 \\\\ -49 \\end{pmatrix}',
    '\\begin{pmatrix} -18 \\\\ -49 \\\\ 96 \\end{pmatrix}',
    false,
    'vector entries order',
  ],
  // Base numerals, delimiters, boxes, punctuation
  ['52_{8}', '52_8', true, 'braced base subscript'],
  ['52', '52_8', true, 'digits of the base asked for'],
  ['42', '52_8', false, 'the decimal value is not the base-8 numeral'],
  ['$\\boxed{27}$', '27', true, 'box and dollar delimiters'],
  ['27.', '27', true, 'trailing period'],
  ['', '27', false, 'empty answer'],
  ['\\frac{1}{2', '\\frac{1}{2}', false, 'unbalanced braces'],
];

for (const [model, reference, equivalent, why] of PAIRS) {
  test(`${why}: ${JSON.stringify(model)} ${equivalent ? '≡' : '≢'} ${JSON.stringify(reference)}`, () => {
    assert.equal(answersEquivalent(model, reference), equivalent);
    assert.equal(answersEquivalent(reference, model), equivalent, 'the check is symmetric');
  });
}

test('the table holds at least 50 pairs of each verdict mix', () => {
  assert.ok(PAIRS.length >= 50);
  assert.ok(PAIRS.filter((p) => !p[2]).length >= 20, 'enough non-equivalent pairs');
});

test('the final answer is the last box, nested braces balanced; no box gives null', () => {
  const solution = 'First \\boxed{3} is wrong; so the answer is $\\boxed{\\frac{1}{\\sqrt{2}}}$.';
  assert.deepEqual(boxedContents(solution), ['3', '\\frac{1}{\\sqrt{2}}']);
  assert.equal(finalBoxedAnswer(solution), '\\frac{1}{\\sqrt{2}}');
  assert.equal(finalBoxedAnswer('The answer is 5.'), null);
  assert.equal(finalBoxedAnswer('\\boxed{5} then \\boxed{6'), '5', 'an unclosed box is not an answer');
  assert.equal(finalBoxedAnswer('\\fbox{7}'), '7');
});

test('normalisation removes layout only', () => {
  assert.equal(normalizeAnswer('$\\left( 3, \\dfrac{\\pi}{2} \\right)$.'), '( 3, \\frac{\\pi}{2} )');
  assert.equal(normalizeAnswer('10,\\!080'), '10,080');
  assert.equal(normalizeAnswer('\\frac{270}7\\text{ degrees}'), '\\frac{270}7^\\circ');
});

test('junk never throws', () => {
  for (const junk of ['\\', '{{{', '}}}', '\\frac', '^^', '(((', '\\sqrt[', '1/0', '0/0', '\\begin{pmatrix}'])
    assert.doesNotThrow(() => answersEquivalent(junk, junk + '1'));
});
