// Types of dist/headwise.js (copied next to it as dist/headwise.d.ts by the build).
//
// In Node, `require('./dist/headwise.js')` returns createHeadwise; in a browser a classic
// <script src="headwise.js"> defines the global createHeadwise. Matrices in and out are row-major
// nested arrays (number[][], like tensor.tolist()). Every method takes one options object and
// throws a HeadwiseError (an Error whose message says what is wrong, with a stable code, the
// option it concerns and its parameters); results are plain data (nothing to .delete()).

/**
 * Loads the WebAssembly module and resolves to the API.
 *
 * @param moduleArg Optional Emscripten Module settings (rarely needed).
 * @example
 * const hw = await createHeadwise();
 * hw.parameterCount({embedDim: 8, numHeads: 2, bias: false}).total; // 256
 */
declare function createHeadwise(
  moduleArg?: createHeadwise.ModuleSettings
): Promise<createHeadwise.Headwise>;

declare namespace createHeadwise {
  /**
   * Every Error the API throws: `message` is English for people ("seedExperiment: d_model (10)
   * must be divisible by num_heads (4)"); `code`, `field` and `params` are for programs, and stay
   * when a message is reworded. `field` is the option the error concerns, as the API names it
   * ("dModel", "numHeads", "layers"; for a nested entry the option it is part of: "x" for
   * "x[1][2]"), null when none.
   *
   * The codes and their params (every code may also carry `path`, the entry as the message names
   * it, for the JS layer's own checks):
   * - positive {value}; atMost {value, max}; atLeast {value, min}; range {value, min, max,
   *   index?}; integerRange {value, min, max} (the seed); rangeAbove {value, min, max}
   *   (learningRate: greater than min); nonNegative {value} (rtol, atol)
   * - divisible {value, divisor, divisorField} ("dModel" by "numHeads")
   * - memory {tokens, dModel, numHeads, need, max, fields} (MiB); trainMemory {value, seqLen,
   *   dModel, vocab, need, max}
   * - shape {rows, cols, expectedRows, expectedCols}; length {length, expected}; empty {};
   *   mismatch {value, expected} (q/k/v and query/key/value sizes that disagree); intoSize {}
   * - finite {value: 'nan' | 'inf' | '-inf', row?, col?}
   * - unknownName {value, allowed: string[]} (task, relations); count {value, min, max,
   *   allowed?}; oneWord {given, count} and unknownWord {given, size} (a text model's word); duplicate {value, first, second}; duplicateHead {layer, head}; noHead {layer,
   *   head, layers, heads}
   * - required {other?}; notAllowed {}; together {names, given?}; conflict {other}; maskKinds {}
   * - noTarget {}; utf8 {byte}; surrogate {index}; format {detail?} (a text model's weights)
   * - tooFewWords {value, min}; tooFewDistinct {value, min}; noEnglishWords {words} (a text
   *   trainer's text); warmStartSize {value, expected} (a size unlike the warm start's);
   *   shardNode {lo, hi, count} (a text trainer's shardSum range that is no node of the tree)
   * - options {given}; unknownOption {value, allowed}; integer {given}; safeInteger {value};
   *   number {given}; boolean {given}; whole {given}; type {given}; sharedMemory {other}
   * - disposed {}; lessonOnly {method}; unsupported {feature: 'webassembly' | 'simd' |
   *   'decompression'} (createHeadwise's rejection)
   * - outOfMemory {}; internal {}; invalid {} (a refusal without a code of its own)
   */
  interface HeadwiseError extends Error {
    code: string;
    field: string | null;
    params: Record<string, number | string | string[]>;
  }

  /**
   * The text of dist/headwise.js as a classic script that defines createHeadwise, read from
   * memory (for a blob: Worker, with no second download); null if the file was not post-linked.
   */
  function moduleSource(): string | null;

  /**
   * Whether this module trains: true for dist/headwise.js; false for dist/headwise-lesson.js, the
   * same API without training, whose trainingTasks, trainingRelations, headsNeededDefaults,
   * inductionDefaults,
   * createTrainer, trainerCount, textModel and createTextTrainer throw an Error that names headwise.js.
   */
  const training: boolean;

  /**
   * The one tensor type of every result: the numbers as the module wrote them (flat, row-major)
   * and their shape as the module gave it, [n], [rows, cols] or [depth, rows, cols] (and
   * [layers, heads, n, n] for a text model's attention). rows, cols and depth give the
   * {data, rows, cols[, depth]} form every option accepts (a vector has cols 1); every option
   * also takes the Tensor itself, or {data, shape} of the right rank. Posted to another thread it
   * arrives as {data, shape}.
   */
  class Tensor {
    constructor(data: Float64Array, shape: number[]);
    readonly data: Float64Array;
    readonly shape: number[];
    readonly rows: number;
    readonly cols: number;
    readonly depth: number | undefined;
    /** Matrix h of a stack (the first index fixed at h), a view of the same numbers. */
    head(h: number): Tensor;
    /** Row i of a matrix, a view of the same numbers. */
    row(i: number): Float64Array;
    /** A copy with numbers of its own. */
    copy(): Tensor;
    /** The nested arrays (number[], number[][], number[][][] or number[][][][]). */
    tolist(): any;
  }

  /**
   * A tensor's nested arrays with the tensor as their non-enumerable `typed`, the form of a
   * trainer's attention() (for code that moves results between threads).
   */
  function nested(tensor: Tensor): any[] & { readonly typed: Tensor };

  /**
   * A result in the API's form from fields some of which are Tensors (for code that moves
   * results between threads): each Tensor becomes nested arrays made on first read, and is kept
   * under the same name in the result's `typed`.
   */
  function result(fields: Record<string, unknown>): Record<string, any> & TypedResult;

  // ---- inputs ---------------------------------------------------------------------------------

  /** One row of numbers: an array, or any typed array of numbers. */
  type NumericRow =
    | readonly number[]
    | Float64Array
    | Float32Array
    | Int32Array
    | Uint32Array
    | Int16Array
    | Uint16Array
    | Int8Array
    | Uint8Array
    | Uint8ClampedArray;

  /** A (rows, cols) matrix as one row-major array: data[i * cols + j]. */
  interface FlatMatrix {
    /** Any typed array of numbers; a Float64Array is used without a copy. */
    data: Exclude<NumericRow, readonly number[]>;
    rows: number;
    cols: number;
  }

  /** A stack of (rows, cols) matrices as one array: data[(h * rows + i) * cols + j]. */
  interface FlatStack extends FlatMatrix {
    depth: number;
  }

  /** A result's tensor as it crosses between threads: a Tensor, or {data, shape} from one. */
  interface TensorInput {
    data: Float64Array;
    shape: readonly number[];
  }

  /** A (rows, cols) matrix given as rows (every row the same length, >= 1), flat, or a tensor. */
  type MatrixInput = readonly NumericRow[] | FlatMatrix | TensorInput;

  /** A vector (n >= 1), or a tensor of shape [n]. */
  type VectorInput = NumericRow | TensorInput;

  /** A (rows, cols) matrix of booleans; true means "not allowed" (PyTorch's meaning). */
  type BoolMatrixInput = readonly (readonly boolean[])[];

  // ---- outputs --------------------------------------------------------------------------------

  /** A (rows, cols) matrix, row-major: matrix[i][j]. */
  type Matrix = number[][];

  /** A stack of equally shaped matrices: stack[h][i][j]. */
  type MatrixStack = number[][][];

  /**
   * Every tensor of a result also as the module returned it (not enumerable, no copy): a
   * Tensor, its shape [n] for a vector, [rows, cols] for a matrix, [depth, rows, cols] for a
   * stack. Hand these to another call, or transfer their buffers to another thread, without the
   * nested arrays (which are made only when a field is read).
   */
  interface TypedResult {
    readonly typed: Readonly<Record<string, Tensor>>;
  }

  /** Emscripten Module settings accepted by the factory (all optional). */
  interface ModuleSettings {
    /** Receives Emscripten's stdout lines. */
    print?: (text: string) => void;
    /** Receives Emscripten's stderr lines. */
    printErr?: (text: string) => void;
    [setting: string]: unknown;
  }

  // ---- seedExperiment / multiHeadAttention --------------------------------------------------

  interface SeedExperimentOptions {
    /** np.random.seed(seed): an integer 0 .. 4294967295. */
    seed: number;
    /** Number of tokens n: 1 .. 2048. */
    tokens: number;
    /** Model width d_model: 1 .. 2048, divisible by numHeads. */
    dModel: number;
    /** Number of heads h >= 1; d_head = dModel / numHeads. */
    numHeads: number;
    /** Also draw bq, bk, bv, bo = randn(dModel) x4 after the weights. Default false. */
    bias?: boolean;
    /** Query i attends only to keys j <= i. Default false. */
    causal?: boolean;
  }

  interface MultiHeadAttentionOptions {
    /** Input (n, d_model). */
    x: MatrixInput;
    /** Projections in the lesson's convention (Q = x @ wq + bq): each (d_model, d_model). */
    wq: MatrixInput;
    wk: MatrixInput;
    wv: MatrixInput;
    wo: MatrixInput;
    /** Number of heads, dividing d_model. */
    numHeads: number;
    /** Biases (d_model each): all four or none. */
    bq?: VectorInput;
    bk?: VectorInput;
    bv?: VectorInput;
    bo?: VectorInput;
    /** Query i attends only to keys j <= i. Default false. */
    causal?: boolean;
    /**
     * A previous result of the same sizes (or its `typed`): each of its Float64Arrays (q, k, v,
     * concat, output, headWeights, headOutputs) takes this call's result of that name, so no new
     * memory is allocated for it. That result's arrays then hold this call's numbers (and so do
     * its nested arrays, where they had not been read yet). An array of another length is an
     * error, and then nothing is written.
     */
    into?: TypedResult | Partial<Record<'q' | 'k' | 'v' | 'concat' | 'output' | 'headWeights' | 'headOutputs', { data: Float64Array }>>;
  }

  /** Every intermediate of the lesson's pipeline. */
  interface MhaResult {
    /** d_model / numHeads. */
    dHead: number;
    numHeads: number;
    causal: boolean;
    /** x @ wq (+ bq), (n, d_model); likewise k and v. */
    q: Matrix;
    k: Matrix;
    v: Matrix;
    /** Per head softmax(q_h k_h^T / sqrt(d_head)): (numHeads, n, n), each row sums to 1. */
    headWeights: MatrixStack;
    /** Per head weights @ v_h: (numHeads, n, dHead). */
    headOutputs: MatrixStack;
    /** The head outputs side by side, (n, d_model). */
    concat: Matrix;
    /** concat @ wo (+ bo), (n, d_model). */
    output: Matrix;
  }

  interface SeedExperimentResult extends MhaResult {
    seed: number;
    tokens: number;
    dModel: number;
    bias: boolean;
    /** The draws: x (tokens, dModel), then wq, wk, wv, wo (dModel, dModel). */
    x: Matrix;
    wq: Matrix;
    wk: Matrix;
    wv: Matrix;
    wo: Matrix;
    /** Only when bias is true: bq, bk, bv, bo (dModel each). */
    bq?: number[];
    bk?: number[];
    bv?: number[];
    bo?: number[];
  }

  // ---- torchMultiheadAttention ----------------------------------------------------------------

  interface TorchMultiheadAttentionOptions {
    /** embed_dim E (at most 16777216), divisible by numHeads. */
    embedDim: number;
    numHeads: number;
    /** (3E, E), when kdim and vdim equal embedDim. */
    inProjWeight?: MatrixInput;
    /** (E, E), (E, kdim), (E, vdim): when kdim or vdim differ from embedDim. */
    qProjWeight?: MatrixInput;
    kProjWeight?: MatrixInput;
    vProjWeight?: MatrixInput;
    /** (3E). Giving inProjBias and outProjBias means bias=True. */
    inProjBias?: VectorInput;
    /** out_proj.weight (E, E). */
    outProjWeight: MatrixInput;
    /** out_proj.bias (E). */
    outProjBias?: VectorInput;
    /** bias_k and bias_v (E each; PyTorch stores them as (1, 1, E)): add_bias_kv=True. */
    biasK?: VectorInput;
    biasV?: VectorInput;
    /** Width of key and of value. Default embedDim. */
    kdim?: number;
    vdim?: number;
    /** (L, E). */
    query: MatrixInput;
    /** (S, kdim). */
    key: MatrixInput;
    /** (S, vdim). */
    value: MatrixInput;
    /** (L, S): booleans (true = not allowed) or numbers added to the scores (or -Infinity). */
    attnMask?: BoolMatrixInput | MatrixInput;
    /** (S): true = ignore this key. */
    keyPaddingMask?: readonly boolean[];
    /** Return the attention weights. Default true. */
    needWeights?: boolean;
    /** Average the weights over heads (L, S') or keep them per head (h, L, S'). Default true. */
    averageAttnWeights?: boolean;
  }

  /** S' = S, or S + 1 with biasK / biasV. A fully masked query row is NaN, as in PyTorch. */
  interface TorchMultiheadAttentionResult {
    /** (L, E). */
    attnOutput: Matrix;
    /** (L, S') averaged, (numHeads, L, S') per head, or null when needWeights is false. */
    attnWeights: Matrix | MatrixStack | null;
  }

  // ---- parameterCount / packLessonWeights -----------------------------------------------------

  interface ParameterCountOptions {
    /** embed_dim E (at most 16777216), divisible by numHeads. */
    embedDim: number;
    numHeads: number;
    /** in_proj_bias and out_proj.bias. Default true, like PyTorch. */
    bias?: boolean;
    /** bias_k and bias_v. Default false. */
    addBiasKv?: boolean;
    /** Default embedDim. */
    kdim?: number;
    vdim?: number;
  }

  interface TensorInfo {
    /** As in named_parameters(): 'in_proj_weight', 'out_proj.weight', ... */
    name: string;
    shape: number[];
    numel: number;
  }

  interface ParameterCountResult {
    /** sum(p.numel() for p in mha.parameters()). */
    total: number;
    /** In named_parameters() order. */
    tensors: TensorInfo[];
  }

  interface PackLessonWeightsOptions {
    /** The lesson's weights, each (E, E). */
    wq: MatrixInput;
    wk: MatrixInput;
    wv: MatrixInput;
    wo: MatrixInput;
    /** All four or none, E each. */
    bq?: VectorInput;
    bk?: VectorInput;
    bv?: VectorInput;
    bo?: VectorInput;
  }

  interface PackLessonWeightsResult {
    /** [wq^T; wk^T; wv^T], (3E, E). */
    inProjWeight: Matrix;
    /** wo^T, (E, E). */
    outProjWeight: Matrix;
    /** [bq; bk; bv] (3E), only when biases were given. */
    inProjBias?: number[];
    /** bo (E), only when biases were given. */
    outProjBias?: number[];
  }

  // ---- comparisons ----------------------------------------------------------------------------

  interface CompareHeadsOptions {
    /** (numHeads, L, S): one weight matrix per head, all the same shape. */
    headWeights: readonly MatrixInput[] | FlatStack;
    /** np.allclose's rtol, finite >= 0. Default 1e-5. */
    rtol?: number;
    /** np.allclose's atol, finite >= 0. Default 1e-8. */
    atol?: number;
  }

  interface HeadPair {
    a: number;
    b: number;
    /** np.allclose(headWeights[a], headWeights[b], rtol, atol). */
    allclose: boolean;
    /** max |headWeights[a] - headWeights[b]|. */
    maxAbsDiff: number;
    /** Mean over query rows of the Jensen-Shannon divergence (natural log, 0 .. ln 2). */
    meanJsDivergence: number;
  }

  interface AllcloseOptions {
    /** Same shape as b. */
    a: MatrixInput;
    b: MatrixInput;
    /** Default 1e-5. */
    rtol?: number;
    /** Default 1e-8. */
    atol?: number;
    /** NaN equals NaN. Default false. */
    equalNan?: boolean;
  }

  interface MaxAbsDiffOptions {
    /** Same shape as b. */
    a: MatrixInput;
    b: MatrixInput;
  }

  // ---- circuits ------------------------------------------------------------------------------

  interface HeadCircuitsOptions {
    /** The lesson's weights, each (dModel, dModel), row-vector convention (Q = X Wq). */
    wq: MatrixInput;
    wk: MatrixInput;
    wv: MatrixInput;
    wo: MatrixInput;
    /** Must divide dModel; head h owns columns h*dHead .. (h+1)*dHead-1 of wq, wk, wv and those rows of wo. */
    numHeads: number;
  }

  interface HeadCircuitsResult {
    /** [h]: W_QK = Wq_h Wk_h^T (dModel, dModel), rank <= dHead: which pairs head h matches. */
    qk: MatrixStack;
    /** [h]: W_OV = Wv_h Wo_h (dModel, dModel), rank <= dHead: what head h writes; sum over h = Wv Wo. */
    ov: MatrixStack;
    /**
     * [h]: the rank of qk[h] and of ov[h], as np.linalg.matrix_rank counts it: singular values
     * above s_max * dModel * eps (float64 eps). dHead for the lesson's random weights.
     */
    qkRank: number[];
    ovRank: number[];
    /** max |sum_h ov[h] - Wv Wo|: splitting Wv Wo into heads loses nothing but rounding (~1e-15). */
    ovSumError: number;
  }

  /**
   * Every head's circuits of a trainer or a text model (cpp/headwise/circuits.hpp; E the token
   * embedding, P the position embedding, U the read-out, row-vector convention). Head h of layer l
   * is [l][h]; layers count from 0.
   */
  interface ModelCircuits {
    /** [l][h]: W_QK = Wq_h Wk_h^T (dModel, dModel). */
    qk: Matrix[][];
    /** [l][h]: W_OV = Wv_h Wo_h (dModel, dModel). */
    ov: Matrix[][];
    /**
     * [l][h]: the copying score sum(lambda) / sum(|lambda|) over the eigenvalues of E W_OV U
     * (-1 .. 1; 1: the head raises the logit of the word it reads; 0 when every eigenvalue is 0).
     * With one read-out (a text model, the induction task, a task of one relation) a number; a
     * trainer with R relations has R read-outs (readout columns r*vocab .. (r+1)*vocab-1) and
     * gets a list of R scores, one per relation in the task's order.
     */
    copying: (number | number[])[][];
    /**
     * [l][h]: the share of query positions i >= 1 whose largest positional score
     * P_i W_QK P_j^T over j <= i is at j = i - 1 (a tie with another j does not count).
     */
    previousPosition: Matrix;
    /**
     * Composition of head (l, h) with each head (m, g) of an earlier layer, [l][h][m][g] for
     * m = 0 .. l-1 (an empty list for layer 0): k = |W_QK(l,h) W_OV(m,g)^T|_F, q = |W_OV(m,g)
     * W_QK(l,h)|_F, each over |W_QK(l,h)|_F |W_OV(m,g)|_F; v = |W_OV(m,g) W_OV(l,h)|_F over
     * |W_OV(l,h)|_F |W_OV(m,g)|_F (0 where a norm is 0).
     */
    composition: { q: number[][][][]; k: number[][][][]; v: number[][][][] };
  }

  interface HeapStats {
    /** Size of the WebAssembly memory in bytes (it only grows). */
    heapBytes: number;
    /** Bytes malloc has in use; 0 between calls. */
    usedBytes: number;
  }

  interface Limits {
    /** 4294967295. */
    maxSeed: number;
    /** 2048. */
    maxTokens: number;
    /** 2048. */
    maxDModel: number;
  }

  // ---- training -------------------------------------------------------------------------------

  /** One rule of a training task: the target at position i is the token at another position. */
  interface TrainingRelation {
    /**
     * The catalogue's name, what createTrainer's relations take: 'previous', 'two-back',
     * 'three-back', 'four-back', 'first', 'second' or 'third'.
     */
    name: string;
    /** How the page names it: 'previous token', 'two back', 'first token', ... */
    title: string;
    /**
     * e.g. 'x[i-1]' or 'x[1]'; no target (-1) where that position does not exist or comes after i
     * (x[1] at i = 0: the model attends causally).
     */
    rule: string;
    /** One sentence for the page. */
    description: string;
    /** Where the target is, as the rule says: `{back: k}`, the token k positions before i, or `{at: k}`, the token at position k. */
    source: { back: number } | { at: number };
  }

  /** A task's settings but for the head count (chosen by the sweeps in tests/train). */
  interface TrainingSettings {
    dModel: number;
    seqLen: number;
    vocab: number;
    learningRate: number;
    batchSize: number;
    /** The step budget the page trains each model for. */
    steps: number;
    /** Held-out sequences evaluate() uses. */
    evalSize: number;
  }

  /** The settings a task uses unless createTrainer overrides them. */
  interface TrainingDefaults extends TrainingSettings {
    numHeads: number;
  }

  interface TrainingTask {
    /** 'previous-and-first' or 'previous-and-two-back'. */
    name: string;
    /** e.g. 'Previous token and first token'. */
    title: string;
    /** The relations, in the order of targets' last axis and of relationAccuracy. */
    relations: TrainingRelation[];
    /** The default vocabulary size (= defaults.vocab). */
    vocab: number;
    /** Readable labels of the default vocabulary's tokens: 'A', 'B', ... */
    tokenLabels: string[];
    defaults: TrainingDefaults;
  }

  /**
   * The "how many heads does a task need?" experiment: tasks of D = 1 .. 4 relations, each
   * trained with every head count at the same dModel (so the same parameter count). Settings
   * chosen by the sweep in tests/train (`npm run sweep:heads`; cpp/TRAINING.md). A task
   * built from relations takes these settings as its defaults.
   */
  interface HeadsNeededDefaults extends TrainingSettings {
    /** The default task's relations: ['previous', 'first', 'two-back']. */
    relations: string[];
    /** The grid's order of adding relations: D relations are the first D of these. */
    gridRelations: string[];
    /** [1, 2, 4, 8]. */
    headCounts: number[];
    /** A model solves its task when its worst relation's held-out accuracy is at least this. */
    solvedAccuracy: number;
    /** The most relations one task may have (6). */
    maxRelations: number;
    /** Readable labels of the default vocabulary's tokens: 'A', 'B', ... */
    tokenLabels: string[];
  }

  /**
   * The induction experiment: a model of `layers` layers beside one layer with each of
   * compareHeadCounts at the same dModel, on the task 'induction' (random tokens in which a
   * segment of 3 to seqLen / 4 tokens repeats at a varying distance; the target is the next
   * token along the repeat). Chosen by `npm run sweep:induction` (cpp/TRAINING.md).
   */
  interface InductionDefaults extends TrainingDefaults {
    /** 2. */
    layers: number;
    /** [2, 4, 8]: one layer with each, for comparison. */
    compareHeadCounts: number[];
    /** The head has formed: repeatAccuracy >= formedAccuracy ... */
    formedAccuracy: number;
    /** ... and a last-layer head's inductionScore >= formedScore. */
    formedScore: number;
    /** Readable labels of the vocabulary's tokens. */
    tokenLabels: string[];
  }

  /** Give either task or relations, not both. */
  interface CreateTrainerOptions {
    /** A preset: a name from trainingTasks(), or 'induction' (see inductionDefaults()). */
    task?: string;
    /**
     * A task built from 1 to 6 distinct names of trainingRelations(), in the order of targets'
     * last axis, relationAccuracy and headFocus' columns. Defaults: headsNeededDefaults()'s.
     */
    relations?: readonly string[];
    /**
     * Attention layers, 1 .. 4 (default 1): z = embeddings, then z = z + MHA_l(z) per layer,
     * each with its own wq, wk, wv, wo.
     */
    layers?: number;
    /** 1 .. dModel, dividing dModel: heads per layer. */
    numHeads: number;
    /** 1 .. 256. */
    dModel: number;
    /** np.random.seed(seed): 0 .. 4294967295. Same seed, same weights, batches and trajectory. */
    seed: number;
    /** Sequence length n: 3 .. 64. Default: the task's. */
    seqLen?: number;
    /** Vocabulary size V: 2 .. 256. Default: the task's. */
    vocab?: number;
    /** Adam's learning rate: > 0 and <= 1. Default: the task's. */
    learningRate?: number;
    /** Sequences per step: 1 .. 1024. Default: the task's. */
    batchSize?: number;
    /** Held-out sequences: 1 .. 4096. Default: the task's. */
    evalSize?: number;
  }

  /** The resolved settings of a trainer. */
  interface TrainerConfig {
    /** The preset's name; null for a task built from relations. */
    task: string | null;
    /** e.g. 'Previous token and first token', or 'Previous token, first token and two back'. */
    title: string;
    layers: number;
    numHeads: number;
    dModel: number;
    /** dModel / numHeads. */
    dHead: number;
    seed: number;
    seqLen: number;
    vocab: number;
    learningRate: number;
    batchSize: number;
    evalSize: number;
    /** R, the number of relations. */
    numRelations: number;
    relations: TrainingRelation[];
    tokenLabels: string[];
  }

  /**
   * The model's parameters (or their gradients), row-major nested arrays, named and ordered as
   * parameterCount().tensors lists them: tokenEmbedding (vocab, dModel), positionEmbedding
   * (seqLen, dModel), the projections (dModel, dModel) each in the lesson's convention
   * Q = z @ wq — wq, wk, wv, wo with one layer, layers.{l}.wq ... with more — readout
   * (dModel, R * vocab) and readoutBias (R * vocab).
   */
  interface TrainerParameters {
    tokenEmbedding: Matrix;
    positionEmbedding: Matrix;
    readout: Matrix;
    readoutBias: number[];
    [projection: string]: Matrix | number[];
  }

  /** The same tensors, as inputs (typed-array rows allowed); every one is required. */
  interface TrainerParametersInput {
    tokenEmbedding: MatrixInput;
    positionEmbedding: MatrixInput;
    readout: MatrixInput;
    readoutBias: VectorInput;
    [projection: string]: MatrixInput | VectorInput;
  }

  interface StepResult {
    /** Adam steps taken so far. */
    step: number;
    /** Mean cross-entropy of the last step's batch (before its update). */
    loss: number;
    /** Fraction of the last step's targets predicted right (before its update). */
    accuracy: number;
  }

  interface GradientsOptions {
    /** (B, n) token ids, 1 <= n <= seqLen. */
    tokens: MatrixInput;
    /** (B, n, R): each -1 (no target, ignored) or a token id. */
    targets: readonly (readonly NumericRow[])[];
  }

  interface GradientsResult {
    loss: number;
    accuracy: number;
    /** d loss / d parameter, for every parameter. */
    gradients: TrainerParameters & TypedResult;
  }

  interface EvaluateOptions {
    /**
     * Heads to switch off (their block of concat zeroed before @ wo), each a [layer, head] pair
     * or an index layer * numHeads + head (with one layer, the head). Default none.
     */
    ablate?: readonly (number | readonly [number, number])[];
  }

  interface EvaluateResult {
    /** Held-out mean cross-entropy. */
    loss: number;
    /** Held-out accuracy over every counted target. */
    accuracy: number;
    /** Held-out accuracy per relation, in the order of config.relations. */
    relationAccuracy: number[];
    /**
     * [layer * numHeads + h][r]: the mean weight head h (of that layer) gives relation r's
     * source position, over held-out (sequence, position) pairs where r is defined and no other
     * relation reads the same position.
     */
    headFocus: Matrix;
    /** The task 'induction' only: held-out accuracy on the repeat's predictable positions. */
    repeatAccuracy?: number;
    /** The task 'induction' only: held-out mean cross-entropy there. */
    repeatLoss?: number;
    /** The task 'induction' only: [layer][h], mean weight on the token before. */
    previousTokenScore?: Matrix;
    /**
     * The task 'induction' only: [layer][h], mean weight a repeated token gives the position
     * right after its earlier occurrence (prefix matching).
     */
    inductionScore?: Matrix;
  }

  /** The model's tensors, the core's one list of them, in order (shape [n] for a vector). */
  interface TrainerParameterCount {
    total: number;
    tensors: { name: string; shape: number[]; numel: number }[];
  }

  /** A model in training. Call dispose() when done (it is also freed when collected). */
  interface Trainer {
    /** The resolved settings. */
    readonly config: Readonly<TrainerConfig>;
    /** A fresh copy of config. */
    info(): TrainerConfig;
    /** Runs k Adam steps (default 1; 1 .. 100000), each on a fresh random batch. */
    step(k?: number): StepResult;
    /** The current parameters (each also a Tensor in `typed`). */
    parameters(): TrainerParameters & TypedResult;
    /** Loads parameters (checked first; Adam's state and the step count are kept). */
    setParameters(parameters: TrainerParametersInput): void;
    /** Loss and every parameter's gradient for one batch; changes nothing. */
    gradients(options: GradientsOptions): GradientsResult;
    /**
     * Every layer's per-head attention weights [layer * numHeads + h][n][n] for one sequence of
     * token ids; the same numbers as one Tensor [layers * numHeads, n, n] in `typed` (not
     * enumerable).
     */
    attention(options: { tokens: NumericRow }): MatrixStack & { readonly typed: Tensor };
    /**
     * Loss and accuracies on the held-out set with the listed heads switched off (headFocus and
     * the induction scores also as Tensors in `typed`).
     */
    evaluate(options?: EvaluateOptions): EvaluateResult & TypedResult;
    /** The model's tensors and their sizes. */
    parameterCount(): TrainerParameterCount;
    /**
     * Every head's circuits from the current parameters (copying: one score per relation when
     * the task has several).
     * @example
     * const t = hw.createTrainer({task: 'induction', layers: 2, numHeads: 2, dModel: 32, seed: 0});
     * t.step(600);
     * const c = t.circuits();
     * c.copying[1][0];           // layer 2's head 0: near 1 once it copies
     * c.composition.k[1][0][0];  // its K-composition with each layer-1 head: [g]
     */
    circuits(): ModelCircuits;
    /** Frees the trainer; every later call throws. Calling it twice is harmless. */
    dispose(): void;
    /** True after dispose(). */
    readonly disposed: boolean;
  }

  // ---- the text model -------------------------------------------------------------------------

  /** A text model's sizes (read from its weights file). */
  interface TextModelConfig {
    layers: number;
    numHeads: number;
    dModel: number;
    dHead: number;
    /** The most words it reads at once. */
    context: number;
    /** Its words, "<unk>" (id 0) included. */
    vocab: number;
  }

  /** Words of a text and the model's ids for them (0, "<unk>", for a word it does not know). */
  interface TextTokens {
    words: string[];
    ids: number[];
    /** Per word: the model does not know it. */
    unknown: boolean[];
  }

  interface TextPrediction {
    word: string;
    id: number;
    probability: number;
  }

  interface TextRunResult extends TextTokens {
    /** [layer][head][i][j]: how much word i attends to word j (causal: 0 for j > i). */
    attention: number[][][][];
    /** [i]: the 5 likeliest words after words 0 .. i, likeliest first. */
    predictions: TextPrediction[][];
    /** The mean of tokenLoss (0 for one word). */
    loss: number;
    /** [i]: -log p(word i + 1 | words 0 .. i), in nats. */
    tokenLoss: number[];
  }

  interface TextRunOptions {
    /** Text to read (up to context words), or ... */
    text?: string;
    /** ... word ids (0 .. vocab - 1); give one of the two. */
    ids?: NumericRow;
    /** Heads switched off: [layer, head] pairs, or layer * numHeads + head. */
    ablate?: (number | [number, number])[];
  }

  interface TextAttributeOptions {
    /** Text to read (up to context words), or ... */
    text?: string;
    /** ... word ids (0 .. vocab - 1); give one of the two. */
    ids?: NumericRow;
    /** The word whose next-word logit is split: 0 .. (number of words - 1). */
    position: number;
    /**
     * The word whose logit to split: a word of the vocabulary (read as text is: 'States' is
     * 'states') or a word id. Default: the word that follows position in the text, or at the
     * last position the model's likeliest guess.
     */
    word?: string | number;
  }

  /** The logit of one word after a position, exactly direct + the sum of heads. */
  interface TextAttribution {
    word: string;
    id: number;
    position: number;
    /** The model's logit of word after position (its own forward). */
    logit: number;
    /** softmax of that position's logits, at word. */
    probability: number;
    /** (E[x_i] + P_i) U[:, w] + b[w]: the embedding and position straight to the read-out. */
    direct: number;
    /** [l][h]: head h of layer l's output at position i, through its rows of Wo, times U[:, w]. */
    heads: Matrix;
  }

  interface TextPromotedOptions {
    layer: number;
    head: number;
    /** The source word (a word of the vocabulary, or its id). */
    word: string | number;
    /** How many words (1 .. vocab). Default 10. */
    k?: number;
  }

  interface TextPromotedWord {
    word: string;
    id: number;
    /** E[source] W_OV U[:, id]: the change of this word's logit per unit of attention on the source. */
    value: number;
  }

  interface TextPromotedResult {
    /** The source word and its id. */
    word: string;
    id: number;
    /** The k largest, largest first (equal values: the smaller id first). */
    promoted: TextPromotedWord[];
  }

  /** A text model read from its weights file. Call dispose() when done. */
  interface TextModel {
    readonly config: Readonly<TextModelConfig>;
    /** What its training recorded: corpus, recipe, held-out loss and baselines, head scores. */
    metadata(): Record<string, unknown>;
    /** Its words by id. */
    vocabulary(): string[];
    tokenize(text: string): TextTokens;
    /**
     * The model on a text; attention (a Tensor [layers, heads, n, n]) and tokenLoss ([n]) also in
     * `typed`.
     */
    run(options: TextRunOptions): TextRunResult & TypedResult;
    /** Its parameters by the trainer's names (tokenEmbedding, layers.0.wq, ..., readoutBias). */
    parameters(): TrainerParameters & TypedResult;
    /**
     * Every head's circuits (copying is one number per head: one read-out).
     * @example
     * const c = model.circuits();
     * c.copying[1][0];                 // 1.00 for the shipped model's layer 2 head 0
     * c.previousPosition[0][0];        // 1: layer 1 head 0 looks at the previous position
     * c.composition.k[1][0][0];        // [0.203, 0.080, 0.064, 0.183]
     */
    circuits(): ModelCircuits;
    /**
     * The logit of the word after position, split into the direct path and one term per head;
     * direct + the sum of heads equals logit (to rounding, about 1e-14).
     * @example
     * const a = model.attribute({text: 'The people of the United States have a right to expect' +
     *   ' that their government will do its duty. The people of the United States', position: 23});
     * a.word;        // 'states'
     * a.logit;       // 13.46 = a.direct 11.07 + a.heads[1][0] 1.40 + a.heads[0][0] 0.82 + ...
     */
    attribute(options: TextAttributeOptions): TextAttribution;
    /**
     * The words head (layer, head)'s OV circuit promotes most when it attends to word: the top k
     * of E[word] W_OV U.
     * @example
     * model.promoted({layer: 1, head: 0, word: 'states', k: 5}).promoted[0].word;
     */
    promoted(options: TextPromotedOptions): TextPromotedResult;
    /** Frees the model; every later call throws. Calling it twice is harmless. */
    dispose(): void;
    readonly disposed: boolean;
  }


  // ---- the text trainer -----------------------------------------------------------------------

  /**
   * hw.createTextTrainer's options. The text is tokenised as a text model reads text; its last
   * floor(words * heldOut) words are held out, the rest trains. The vocabulary: "<unk>" and the
   * training part's words seen at least twice, the `vocab` most frequent of them (ties by the
   * word's bytes). The text needs at least max(200, the least number of words whose held-out
   * part holds context + 2 words) words (340 at the defaults; error tooFewWords), some words of
   * the letters a-z (noEnglishWords), and 20 training words seen twice (tooFewDistinct).
   */
  interface CreateTextTrainerOptions {
    /** The text, UTF-8 (a string). */
    text: string;
    /** Most words kept (10 to 8191, default 2000), plus "<unk>". */
    vocab?: number;
    /**
     * The sizes: layers 1-4, numHeads dividing dModel (1-256), context 8-128. Default: the warm
     * start's (which given ones must equal: error warmStartSize), or 2, 4, 64, 32 from scratch.
     */
    layers?: number;
    numHeads?: number;
    dModel?: number;
    context?: number;
    /**
     * np.random.seed(seed) draws the new parameters (init_params of the text model's sizes, all
     * of them; a warm start's positions and attention layers then replace theirs), then each
     * step's batch. 0 to 2^32 - 1, default 0.
     */
    seed?: number;
    /** The share of the text's end held out, 0.05 to 0.5, default 0.1. */
    heldOut?: number;
    /**
     * A text model's weights file whose positions and attention layers start the model.
     * Omitted: the built-in warm-up (web/models/warmup.hwtm: phase 1 of `npm run train:text`,
     * random words in which the layers learn to read the word before and to copy); null: none,
     * every parameter drawn.
     */
    warmStart?: Uint8Array | ArrayBuffer | null;
    /**
     * The run's length, the learning-rate schedule's (default 800): 5e-3, warmed up linearly
     * over the first 50 steps (or all, for a shorter run), then cosine decay to a tenth at
     * `steps`, a tenth after it. 1 to 100000.
     */
    steps?: number;
    /** Windows of context + 1 words per step, 8 to 64 (default 16); half of them repeat a span. */
    batch?: number;
  }

  /** What the tokeniser and the split made of a text trainer's text. */
  interface TextCorpus {
    words: number;
    trainingWords: number;
    heldOutWords: number;
    /** Words of the vocabulary, "<unk>" included. */
    vocab: number;
    /** Shares of words not in the vocabulary (read as "<unk>"). */
    unknownShare: { training: number; heldOut: number };
    /**
     * Tokens that are one character outside ASCII (letters other than a-z such as é or 中,
     * symbols such as — or “): the tokeniser reads English, so each is a word of its own.
     */
    ignored: number;
  }

  /**
   * A text trainer's evaluation of its current parameters on the held-out part, cut into windows
   * of context + 1 words from its start (every window), as a text model's card reports them.
   */
  interface TextTrainerEvaluation {
    /** Mean next-word loss (nats) and the text's own baselines (TextTrainer.baselines). */
    heldOut: { loss: number; unigram: number; bigram: number; windows: number };
    /**
     * Each head's measures [layer][head] (also as Tensors in `typed`), means over positions
     * i >= 1 of the held-out windows: previousWord (weight on i - 1), currentWord (on i),
     * firstWord (on 0), sameWord (on earlier positions holding the same word, over positions
     * that have one), broad (the weights' entropy / log(i + 1)); induction: over positions i
     * whose word (not "<unk>") occurred earlier in the window at some j < i - 1, the summed
     * weight on the positions j + 1 after those occurrences (zero without such positions);
     * repeatInduction: on sequences of context / 2 distinct random words repeated twice (64,
     * drawn anew from np.random.seed(seed) at each call), the weight of position half + j on
     * j + 1.
     */
    heads: {
      previousWord: number[][];
      currentWord: number[][];
      firstWord: number[][];
      sameWord: number[][];
      broad: number[][];
      induction: number[][];
      repeatInduction: number[][];
    } & TypedResult;
    /** Held-out positions the induction measure averages over. */
    inductionPositions: number;
    /** The repeated sequences: their count, half their length, and the mean loss on the first
     * occurrence (after its first word) and on the repeat. */
    repeats: { sequences: number; half: number; firstLoss: number; repeatLoss: number };
    stepsDone: number;
  }

  /**
   * A model trained on a text someone brings (hw.createTextTrainer). Call dispose() when done.
   *
   * Each step's batch is cut into `shards` (8) shards of consecutive windows; a shard's gradient
   * is the gradient of its windows' summed token losses / (batch * context), so the shards'
   * gradients sum to the batch's mean-loss gradient. step() sums them along a fixed pairwise
   * tree, `sum(lo, hi) = shard lo if hi - lo == 1, else sum(lo, mid) + sum(mid, hi)` with
   * `mid = (lo + hi) / 2` (elementwise; the losses likewise), and takes one Adam step. A pool
   * of module instances splits the tree into complete subtrees, one per instance (shardSum),
   * adds their sums along the tree's upper levels and hands the root to every instance
   * (applyGradients): the same bits as step(), whichever instances computed which subtree.
   * shardGradients gives single shards, to be summed along the same tree.
   * @example
   * const t = hw.createTextTrainer({text});          // the warm-up's layers, 800 steps
   * t.baselines.unigram;                             // the text's own unigram, held-out nats
   * t.step(t.steps);
   * t.evaluate().heldOut.loss;                       // below the unigram
   * const model = t.model();                         // a TextModel of the trained weights
   */
  interface TextTrainer {
    readonly config: Readonly<TextModelConfig & { batch: number; warmStart: boolean }>;
    /** The run's length (the learning-rate schedule's). */
    readonly steps: number;
    readonly stepsDone: number;
    /** Shards per batch (8). */
    readonly shards: number;
    readonly parameterCount: number;
    readonly corpus: Readonly<TextCorpus>;
    /**
     * Held-out loss (nats per word, over every held-out pair) of add-k counts of the training
     * words: unigram with k = 1, bigram with k = bigramK (0.03).
     */
    readonly baselines: Readonly<{ unigram: number; bigram: number; bigramK: number }>;
    /** k steps (default 1, at most 100000); the last step's loss (its batch's, before it). */
    step(k?: number): number;
    /** Current model on the held-out part. */
    evaluate(): TextTrainerEvaluation;
    /**
     * hw.textModel of save()'s bytes: a TextModel of the weights rounded to float16 (dispose it
     * when done).
     */
    model(): TextModel;
    /**
     * A text model's weights file (read by hw.textModel): the weights rounded to float16; its
     * metadata JSON records corpus, recipe (sizes, seed, heldOut, warmStart, batch, shards,
     * steps, stepsDone, schedule), heldOut (loss of the rounded weights, baselines), heads
     * (as evaluate()) and repeats.
     */
    save(): Uint8Array;
    /**
     * The listed shards' losses and gradients (shard k's at [k * parameterCount, (k + 1) *
     * parameterCount), in the trainer's parameter order) for this step's batch, drawn first if
     * not drawn yet. Indices 0 to shards - 1, each once (errors range, duplicate).
     */
    shardGradients(shards: number[]): { losses: Float64Array; gradients: Float64Array };
    /**
     * The tree sum of shards lo .. hi - 1 for this step's batch (drawn first if not drawn yet):
     * the summed loss and the summed gradient (parameterCount numbers). The range must be a node
     * of the tree: 0 .. shards, or a half lo .. mid / mid .. hi (mid = (lo + hi) / 2) of a node
     * of two shards or more (error shardNode, field "shards"; lo and hi integers: integer).
     * shardSum(0, shards) then applyGradients(gradient, loss) is step(), bit for bit.
     */
    shardSum(lo: number, hi: number): { loss: number; gradient: Float64Array };
    /**
     * One Adam step with the summed gradient (a Float64Array of parameterCount numbers: error
     * length) at this step's learning rate; loss is kept as the step's. Advances stepsDone. A
     * replica that computed no shard still draws this step's batch, so all stay equal.
     */
    applyGradients(sum: Float64Array, loss: number): void;
    dispose(): void;
    readonly disposed: boolean;
  }

  // ---- the API --------------------------------------------------------------------------------

  interface Headwise {
    /**
     * Exactly `np.random.seed(seed); X = randn(tokens, dModel); Wq, Wk, Wv, Wo = randn(dModel,
     * dModel) x4` (then, only with bias, `bq, bk, bv, bo = randn(dModel) x4`), then the lesson's
     * multi-head pipeline.
     */
    seedExperiment(options: SeedExperimentOptions): SeedExperimentResult & TypedResult;

    /** The lesson's pipeline on given matrices. */
    multiHeadAttention(options: MultiHeadAttentionOptions): MhaResult & TypedResult;

    /**
     * PyTorch 1.13 nn.MultiheadAttention.forward on unbatched input (eval, no dropout). The
     * overloads narrow attnWeights: null without weights, per head when not averaged.
     */
    torchMultiheadAttention(
      options: TorchMultiheadAttentionOptions & { needWeights: false }
    ): TorchMultiheadAttentionResult & TypedResult & { attnWeights: null };
    torchMultiheadAttention(
      options: TorchMultiheadAttentionOptions & { needWeights?: true; averageAttnWeights: false }
    ): TorchMultiheadAttentionResult & TypedResult & { attnWeights: MatrixStack };
    torchMultiheadAttention(
      options: TorchMultiheadAttentionOptions & { needWeights?: true; averageAttnWeights?: true }
    ): TorchMultiheadAttentionResult & TypedResult & { attnWeights: Matrix };
    torchMultiheadAttention(options: TorchMultiheadAttentionOptions): TorchMultiheadAttentionResult & TypedResult;

    /** nn.MultiheadAttention's named_parameters(): names, shapes, counts, total. */
    parameterCount(options: ParameterCountOptions): ParameterCountResult;

    /** The lesson's weights in PyTorch's layout (nn.Linear computes x @ W^T). */
    packLessonWeights(options: PackLessonWeightsOptions): PackLessonWeightsResult & TypedResult;

    /** Every pair a < b of heads, in order (0,1), (0,2), ..., (1,2), ... */
    compareHeads(options: CompareHeadsOptions): HeadPair[];

    /** np.allclose with the same semantics (shapes must be equal; no broadcasting). */
    allclose(options: AllcloseOptions): boolean;

    /** max |a - b| (NaN if any difference is NaN). */
    maxAbsDiff(options: MaxAbsDiffOptions): number;

    /**
     * Each head's two d x d matrices: W_QK = Wq_h Wk_h^T and W_OV = Wv_h Wo_h (also in
     * headwise-lesson.js).
     * @example
     * const L = hw.seedExperiment({seed: 7, tokens: 5, dModel: 8, numHeads: 2});
     * const {qk, ov} = hw.headCircuits({wq: L.wq, wk: L.wk, wv: L.wv, wo: L.wo, numHeads: 2});
     * // ov[0] + ov[1] equals Wv Wo: splitting into heads adds no parameters and loses nothing
     */
    headCircuits(options: HeadCircuitsOptions): HeadCircuitsResult & TypedResult;

    /** The training tasks, their relations and default settings. */
    trainingTasks(): TrainingTask[];

    /** Every relation a task can be built from (createTrainer's relations). */
    trainingRelations(): TrainingRelation[];

    /** The settings of the "how many heads does a task need?" experiment. */
    headsNeededDefaults(): HeadsNeededDefaults;

    /** The settings of the induction experiment (createTrainer's task 'induction'). */
    inductionDefaults(): InductionDefaults;

    /** A model of the training section, its weights drawn from np.random.seed(seed). */
    createTrainer(options: CreateTrainerOptions): Trainer;

    /** Trainers alive in the module (for leak checks). */
    trainerCount(): number;

    /** A text model from the bytes of its weights file (dist/models/sotu.hwtm). */
    textModel(options: { weights: Uint8Array | ArrayBuffer }): TextModel;

    /** A trainer of the text model on a text someone brings (TextTrainer). */
    createTextTrainer(options: CreateTextTrainerOptions): TextTrainer;

    /** Memory use of the module (for leak checks). */
    heapStats(): HeapStats;

    /** The size limits of seedExperiment. */
    readonly limits: Readonly<Limits>;

    /** The package version, e.g. '0.1.0'. */
    readonly version: string;
  }
}

export = createHeadwise;
export as namespace createHeadwise;
