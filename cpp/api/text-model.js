// hw.textModel: a text model from the bytes of its weights file (dist/headwise.js only).

function installTextModel(api, raw) {
  // A text model from the bytes of its weights file (cpp/headwise/text_model.hpp).
  var textFinalizer = finalizerOf(function (o) { raw._textModelDispose(o); });

  api.textModel = function (options) {
    var m = 'textModel';
    var o = checkOptions(m, options, ['weights'], ['weights']);
    var w = o.weights;
    if (w instanceof ArrayBuffer) w = new Uint8Array(w);
    if (!(w instanceof Uint8Array)) {
      fail(m, 'weights must be the bytes of a text model\'s weights file (a Uint8Array or ' +
        'an ArrayBuffer), got ' + describe(o.weights), 'type',
        { path: 'weights', given: describe(o.weights) });
    }
    var created = unwrap(m, raw._textModelCreate({ weights: w }));
    var id = created.id;
    var config = Object.freeze(created.config);
    var vocabulary = created.vocabulary;
    var handle = handleOf('text model', id, textFinalizer, function (o) { raw._textModelDispose(o); });
    var live = handle.live;
    var t = {};

    t.config = config;
    t.metadata = function () { return JSON.parse(created.metadata); };
    t.vocabulary = function () { return vocabulary.slice(); };

    // A string the module can read as UTF-8: a lone surrogate (half of a character) is refused.
    function textArg(mm, text) {
      if (typeof text !== 'string') {
        fail(mm, 'text must be a string, got ' + describe(text), 'type',
          { path: 'text', given: describe(text) });
      }
      var lone = /[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/.exec(text);
      if (lone) {
        var where = lone.index + (lone[1] ? lone[1].length : 0);
        fail(mm, 'text holds half of a character (a lone UTF-16 surrogate) at index ' + where +
          '; give well-formed text', 'surrogate', { path: 'text', index: where });
      }
      return text;
    }

    // opt.text or opt.ids (one of them) into a.
    function sequenceIn(mm, opt, a) {
      if (given(opt.text) === given(opt.ids)) {
        fail(mm, 'give either text (a string) or ids (word ids, number[]), not ' +
          (given(opt.text) ? 'both' : 'neither'), given(opt.text) ? 'conflict' : 'required',
          { path: 'text', other: 'ids' });
      }
      if (given(opt.text)) {
        a.text = textArg(mm, opt.text);
      } else {
        if (!isRow(opt.ids) || opt.ids.length === 0) {
          fail(mm, 'ids must be a non-empty list of word ids (number[]), got ' +
            describe(opt.ids), 'type', { path: 'ids', given: describe(opt.ids) });
        }
        a.ids = tokenMatrix(mm, 'ids', [opt.ids]);
      }
    }

    // A word (a string, read as the tokenizer reads text) or a word id (an integer) into a.
    function wordIn(mm, word, a) {
      if (typeof word === 'string') a.word = textArg(mm, word);
      else if (typeof word === 'number') a.wordId = integer(mm, 'word', word);
      else fail(mm, 'word must be a word (a string) or a word id (an integer), got ' + describe(word), 'type',
        { path: 'word', given: describe(word) });
    }

    t.tokenize = function (text) {
      var mm = 'tokenize';
      var a = live(mm);
      a.text = textArg(mm, text);
      var r = unwrap(mm, raw._textModelTokenize(a));
      return { words: r.words, ids: r.ids, unknown: r.unknown };
    };

    t.run = function (options) {
      var mm = 'run';
      var a = live(mm);
      var opt = checkOptions(mm, options, ['text', 'ids', 'ablate'], []);
      sequenceIn(mm, opt, a);
      a.ablate = ablatePairs(mm, opt.ablate, config.layers, config.numHeads);
      var r = unwrap(mm, raw._textModelRun(a));
      var topIds = r.topIds.data;
      var topP = r.topProbabilities.data;
      var top = r.topIds.shape[1];
      var predictions = [];
      for (var i = 0; i < r.topIds.shape[0]; i++) {
        var row = [];
        for (var j = 0; j < top; j++) {
          var k = topIds[i * top + j];
          row.push({ word: vocabulary[k], id: k, probability: topP[i * top + j] });
        }
        predictions.push(row);
      }
      return moduleResult({
        words: r.words,
        ids: r.ids,
        unknown: r.unknown,
        attention: r.attention,
        predictions: predictions,
        loss: r.loss,
        tokenLoss: r.tokenLoss
      });
    };

    t.parameters = function () {
      return moduleResult(unwrap('parameters', raw._textModelParameters(live('parameters'))));
    };

    t.circuits = function () {
      return circuitsOut(unwrap('circuits', raw._textModelCircuits(live('circuits'))),
        config.layers, config.numHeads);
    };

    t.attribute = function (options) {
      var mm = 'attribute';
      var a = live(mm);
      var opt = checkOptions(mm, options, ['text', 'ids', 'position', 'word'], ['position']);
      sequenceIn(mm, opt, a);
      a.position = integer(mm, 'position', opt.position);
      if (given(opt.word)) wordIn(mm, opt.word, a);
      var r = unwrap(mm, raw._textModelAttribute(a));
      return {
        word: r.word,
        id: r.id,
        position: r.position,
        logit: r.logit,
        probability: r.probability,
        direct: r.direct,
        heads: new Tensor(r.heads.data, r.heads.shape).tolist()
      };
    };

    t.promoted = function (options) {
      var mm = 'promoted';
      var a = live(mm);
      var opt = checkOptions(mm, options, ['layer', 'head', 'word', 'k'], ['layer', 'head', 'word']);
      a.layer = integer(mm, 'layer', opt.layer);
      a.head = integer(mm, 'head', opt.head);
      wordIn(mm, opt.word, a);
      a.k = given(opt.k) ? integer(mm, 'k', opt.k) : 10;
      return unwrap(mm, raw._textModelPromoted(a));
    };

    return handle.finish(t);
  };

}
