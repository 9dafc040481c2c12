// <hw-quiz>: the lesson's five questions as a self-check. Feedback appears as soon as an option
// is chosen; each answer can be revealed. Numbers quoted come from the module (the lesson's run).

import { HwElement, define } from '../shared/element.js';
import { h, replace, code } from '../shared/dom.js';
import { lessonFacts } from '../shared/facts.js';

/** @typedef {import('../shared/store.js').Store} Store */

/**
 * @typedef {object} Question
 * @property {string} id
 * @property {(string|Node)[]} prompt
 * @property {{text: (string|Node)[], correct?: boolean, why: string}[]} options
 * @property {(string|Node)[]} answer  the explanation shown on reveal
 */

/**
 * @param {Record<string, string>} f lesson facts
 * @returns {Question[]}
 */
function questions(f) {
  return [
    {
      id: 'q1',
      prompt: ['Where do the queries, keys and values of each head come from?'],
      options: [
        { text: ['Each head owns its own d_model × d_model matrices Wq, Wk and Wv.'], why: 'That would multiply the weights by the number of heads. The layer keeps a single set.' },
        { text: ['One shared Wq, Wk, Wv at full width; Q, K and V are then cut into equal column chunks.'], correct: true, why: 'Yes: project once at full width, then split.' },
        { text: ['The tokens are shared out among the heads, so each head sees only part of the sequence.'], why: 'Every head sees every token. What is divided is the feature columns.' },
        { text: ['Every head uses all of Q, K and V, and only the softmax step is repeated per head.'], why: 'Then every head would produce the same weights. Each head works on its own slice of the columns.' },
      ],
      answer: ['A single, shared set of projections computed at the full width d_model, split into equal-sized per-head chunks afterwards. There are no separate matrices per head.'],
    },
    {
      id: 'q2',
      prompt: ['How do the parameter counts of ', code('nn.MultiheadAttention(8, num_heads=2, bias=False)'), ' and ', code('nn.MultiheadAttention(8, num_heads=1, bias=False)'), ' compare?'],
      options: [
        { text: ['The 2-head layer has twice as many, one set of matrices per head.'], why: 'Doubling would need a second set of matrices, and there is only one.' },
        { text: ['The 2-head layer has half as many, since each head is half as wide.'], why: 'The matrices stay d_model × d_model whatever the head count.' },
        { text: [`They are identical: ${f['params-2']} parameters each.`], correct: true, why: 'Yes. The head count never enters a parameter shape.' },
        { text: ['The 2-head layer has a few more, to perform the split into heads.'], why: 'The split is a reshape, and a reshape has no parameters.' },
      ],
      answer: [`Identical: ${f['params-2']} for both (checked by the module above). More heads add no parameters; they only change how the projected output is divided up during attention.`],
    },
    {
      id: 'q3',
      prompt: ['On the lesson\'s input (seed 7), what did head 0 and head 1 do with query token 0?'],
      options: [
        { text: ['Exactly the same weights, because both heads use the same projection matrices.'], why: 'They share the matrices but use different columns of them, and np.allclose says False.' },
        { text: ['Nearly the same weights; the only differences are small amounts of numerical noise.'], why: 'The difference is not noise: the two rows put their weight on different tokens.' },
        { text: [`Head 0 split it between tokens 2 and 3 (${f['h0-t2']}, ${f['h0-t3']}); head 1 gave token 4 ${f['h1-t4-pct']}.`], correct: true, why: 'Yes: same token, same input, two different patterns.' },
        { text: ['Both heads put nearly all of their attention on token 0 itself, the query token.'], why: 'Look at the head tables with the lesson\'s settings: neither row peaks at token 0.' },
      ],
      answer: [`They can differ, and here they did: for the same query token and the same input, head 0 divided its attention between tokens 2 and 3 (${f['h0-t2']}, ${f['h0-t3']}) while head 1 gave ${f['h1-t4-pct']} of its weight to token 4.`],
    },
    {
      id: 'q4',
      prompt: ['If splitting into heads leaves the parameter count unchanged, what does it change?'],
      options: [
        { text: ['Q, K and V become num_heads times wider, so that each head gets a full copy.'], why: 'Q, K and V keep their shape (n, d_model); they are only cut into pieces.' },
        { text: ['How many independent softmaxes run, and the width of the subspace behind each one.'], correct: true, why: 'Yes: one softmax over d_model-wide scores becomes h softmaxes over d_model/h-wide ones.' },
        { text: ['The output gains num_heads times as many columns, one block for every head.'], why: 'Concatenating h chunks of d_model/h columns gives back d_model columns.' },
        { text: ['Nothing at all: it is only a different way of writing the very same computation.'], why: 'The head tables show otherwise: separate softmaxes give separate patterns.' },
      ],
      answer: ['How many independent softmaxes there are, and what each works over: instead of one softmax whose scores come from the full d_model-dimensional space, there are num_heads smaller ones, each over a d_model / num_heads-dimensional subspace.'],
    },
    {
      id: 'q5',
      prompt: ['What must be true of d_model and num_heads?'],
      options: [
        { text: ['num_heads must be a power of two, such as 1, 2, 4 or 8.'], why: 'Three heads at d_model = 12 is fine; try it in exercise 2.' },
        { text: ['num_heads must not be larger than the number of tokens n.'], why: 'The head count and the token count are unrelated: one splits columns, the other counts rows.' },
        { text: ['d_model must be exactly divisible by num_heads.'], correct: true, why: 'Yes: every head gets an equal chunk of d_model / num_heads columns.' },
        { text: ['d_model must be at least 64 for the split to work.'], why: 'The lesson itself uses d_model = 8.' },
      ],
      answer: ['d_model must divide evenly by num_heads, because each head takes an equal-sized chunk of d_model / num_heads dimensions from the projected Q, K and V. The module (and PyTorch) refuse anything else.'],
    },
  ];
}

class HwQuiz extends HwElement {
  build() {
    this.score = h('p', { class: 'hw-quiz-score', 'data-testid': 'quiz-score', 'aria-live': 'polite' });
    this.list = h('ol', { class: 'hw-quiz' });
    this.appendChild(this.list);
    this.appendChild(this.score);
  }

  /** @param {Store} store */
  update(store) {
    if (this.rendered) return;
    this.rendered = true;
    /** @type {Record<string, boolean|null>} */
    this.results = {};
    /** @type {((oi: number) => void)[]} shows question qi answered with option oi, without reporting it */
    this.show = [];
    const qs = questions(lessonFacts(store));
    replace(this.list, qs.map((q, qi) => this.question(q, qi)));
    this.updateScore(qs.length);
    if (this.restored) this.restore(this.restored);
  }

  /**
   * Show answers given in an earlier visit (a course platform keeps them, src/lesson/course.js)
   * as if just chosen, without reporting them again. Before the quiz is drawn they are kept
   * until it is.
   * @param {Record<number, number>} answers  question number (1–5) → option index
   */
  restore(answers) {
    this.restored = answers;
    if (!this.rendered) return;
    for (const [n, oi] of Object.entries(answers)) {
      const show = this.show[Number(n) - 1];
      if (show && Number.isInteger(oi)) show(oi);
    }
  }

  /**
   * @param {Question} q
   * @param {number} qi
   */
  question(q, qi) {
    const legendId = `${q.id}-legend`;
    const feedback = h('p', { class: 'hw-feedback', 'data-testid': 'quiz-feedback', 'data-question': String(qi + 1), 'aria-live': 'polite' });
    const answer = h('div', { class: 'hw-answer', 'data-testid': 'quiz-answer', 'data-question': String(qi + 1), hidden: true }, [
      h('p', {}, [h('strong', { text: 'Answer. ' }), ...q.answer]),
    ]);
    const reveal = h('button', { type: 'button', class: 'hw-button hw-button-quiet', 'aria-expanded': 'false', 'aria-controls': `${q.id}-answer`, text: 'Show the answer' });
    answer.id = `${q.id}-answer`;
    const options = q.options.map((o, oi) => {
      const id = `${q.id}-o${oi}`;
      const input = /** @type {HTMLInputElement} */ (h('input', {
        type: 'radio', name: q.id, id, value: String(oi), 'data-correct': o.correct ? 'true' : 'false',
        // Out of the browser's form state, which every address-bar write serializes (see numberField).
        autocomplete: 'off',
      }));
      input.addEventListener('change', () => {
        show(oi);
        this.report(qi, q, oi);
      });
      return h('div', { class: 'hw-option' }, [input, h('label', { for: id }, o.text)]);
    });
    /** @param {number} oi */
    const show = (oi) => {
      const o = q.options[oi];
      if (!o) return;
      const input = /** @type {HTMLInputElement} */ (options[oi].firstChild);
      if (!input.checked) input.checked = true;
      const ok = Boolean(o.correct);
      this.results[q.id] = ok;
      feedback.dataset.correct = String(ok);
      replace(feedback, [h('strong', { text: ok ? 'Correct. ' : 'Not quite. ' }), o.why]);
      this.updateScore(5);
    };
    this.show[qi] = show;
    const fieldset = h('fieldset', { class: 'hw-question', 'data-question': String(qi + 1) }, [
      h('legend', { id: legendId }, [h('span', { class: 'hw-qnum', text: `${qi + 1}. ` }), ...q.prompt]),
      ...options,
    ]);
    reveal.addEventListener('click', () => {
      answer.hidden = !answer.hidden;
      reveal.textContent = answer.hidden ? 'Show the answer' : 'Hide the answer';
      reveal.setAttribute('aria-expanded', String(!answer.hidden));
      fieldset.classList.toggle('hw-revealed', !answer.hidden);
    });
    return h('li', { class: 'hw-quiz-item' }, [fieldset, feedback, h('div', { class: 'hw-controls-actions' }, [reveal]), answer]);
  }

  /**
   * Tell the host page about an answer: a "headwise-quiz" event that bubbles out of shadow roots
   * (an embedding course site may record it; the iframe embed forwards it with postMessage).
   * @param {number} qi
   * @param {Question} q
   * @param {number} oi
   */
  report(qi, q, oi) {
    const results = Object.values(this.results);
    /** @param {(string|Node)[]} parts */
    const text = (parts) => parts.map((t) => (typeof t === 'string' ? t : t.textContent)).join('');
    this.dispatchEvent(new CustomEvent('headwise-quiz', {
      bubbles: true,
      composed: true,
      detail: {
        question: qi + 1,
        questionId: q.id,
        questionText: text(q.prompt),
        answer: oi,
        answerText: text(q.options[oi].text),
        correct: Boolean(q.options[oi].correct),
        correctAnswer: q.options.findIndex((o) => o.correct),
        score: results.filter(Boolean).length,
        answered: results.length,
        total: 5,
      },
    }));
  }

  /** @param {number} total */
  updateScore(total) {
    const answered = Object.keys(this.results).length;
    const right = Object.values(this.results).filter(Boolean).length;
    this.score.textContent = answered === 0 ? `${total} questions. Choose an option to check yourself.` : `${right} of ${total} correct so far (${answered} answered).`;
  }
}

define('hw-quiz', HwQuiz);
