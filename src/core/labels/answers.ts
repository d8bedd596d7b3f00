/** The content of the last \boxed{…} of a solution (its final answer): one reader for the whole product. */
export { finalBoxedAnswer as lastBoxedAnswer } from '../math/answers';
