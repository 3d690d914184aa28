package jinja

// ---- AST

type expr interface{}

type (
	constExpr struct{ v any }
	nameExpr  struct{ name string }
	listExpr  struct{ items []expr }
	tupleExpr struct{ items []expr }
	dictExpr  struct{ keys, vals []expr }
	attrExpr  struct {
		obj  expr
		name string
	}
	itemExpr  struct{ obj, key expr }
	sliceExpr struct {
		obj              expr
		start, stop, stp expr
	}
	callExpr struct {
		fn   expr
		args callArgs
	}
	filterExpr struct {
		obj  expr // nil inside {% filter %}
		name string
		args callArgs
	}
	testExpr struct {
		obj  expr
		name string
		args callArgs
		neg  bool
	}
	unaryExpr struct {
		op string
		x  expr
	}
	binExpr struct {
		op   string
		l, r expr
	}
	condExpr   struct{ cond, a, b expr }
	concatExpr struct{ items []expr }
)

type callArgs struct {
	pos     []expr
	kw      []kwExpr
	star    expr // *args
	starstr expr // **kwargs
}

type kwExpr struct {
	name string
	v    expr
}

// ---- statements

type node interface{}

type (
	textNode   struct{ s string }
	outputNode struct {
		x    expr
		line int
		src  string // the tag's expression, for errors
	}
	ifNode struct {
		conds  []expr
		bodies [][]node
		els    []node
		line   int
	}
	forNode struct {
		target    expr
		iter      expr
		filter    expr
		body, els []node
		recursive bool
		line      int
	}
	setNode struct {
		target expr
		x      expr
		line   int
	}
	setBlockNode struct {
		target  expr
		filters []*filterExpr
		body    []node
		line    int
	}
	macroNode struct {
		name     string
		params   []string
		defaults []expr // aligned to the end of params
		body     []node
		line     int
	}
	callBlockNode struct {
		call     *callExpr
		params   []string
		defaults []expr
		body     []node
		line     int
	}
	filterBlockNode struct {
		filters []*filterExpr
		body    []node
		line    int
	}
	withNode struct {
		targets []string
		vals    []expr
		body    []node
		line    int
	}
	loopCtlNode struct {
		brk  bool
		line int
	}
)
