package io.pgharvest.alert.rule;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.navigation.CelNavigableExpr;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerBuilder;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.pgharvest.model.FieldProblem;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Parses and type-checks a condition with CEL: the names it uses must be the metric's columns
 * and tags (when the catalog knows them), {@code source}, {@code previous} (the row with the same
 * tags in the metric's previous measurement, for counters) or {@code params.NAME} of the rule's
 * parameters; its result must be a boolean; its estimated cost must stay under the limit. Each
 * problem names the position (line:column) in the condition.
 */
final class ConditionCompiler {

    /** How many elements a comprehension over a list of unknown size is assumed to visit. */
    static final long ASSUMED_ITERATIONS = 100;
    /** The most elements one comprehension may visit at run time, whatever the estimate said. */
    static final int MAX_ITERATIONS = 1000;

    private static final CelOptions OPTIONS = CelOptions.current()
            .enableHeterogeneousNumericComparisons(true)
            .comprehensionMaxIterations(MAX_ITERATIONS)
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().setOptions(OPTIONS).build();

    private final long costLimit;
    private final CelCompiler parser = CelCompilerFactory.standardCelCompilerBuilder().setOptions(OPTIONS)
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS).build();

    /** @param program the checked condition, ready to run; @param valueColumn see {@link CompiledRule} */
    record Result(CelRuntime.Program program, String valueColumn, boolean usesPrevious, Set<String> names) {
    }

    ConditionCompiler(long costLimit) {
        this.costLimit = costLimit;
    }

    /** The compiled condition, or null with the problems added to {@code problems}. */
    Result compile(String condition, String metric, Optional<Set<String>> columns, Set<String> params,
            List<FieldProblem> problems) {
        CelValidationResult parsed = parser.parse(condition);
        if (parsed.hasError()) {
            report(parsed, problems);
            return null;
        }
        CelAbstractSyntaxTree ast = astOf(parsed);
        int before = problems.size();
        var names = new LinkedHashSet<String>();
        var usesPrevious = new java.util.concurrent.atomic.AtomicBoolean();
        CelNavigableAst navigable = CelNavigableAst.fromAst(ast);
        navigable.getRoot().allNodes().forEach(node -> {
            if (node.getKind() == CelExpr.ExprKind.Kind.IDENT) {
                String name = node.expr().ident().name();
                if (name.equals(RuleCompiler.PREVIOUS)) {
                    usesPrevious.set(true);
                } else if (!isBound(node, name) && !name.equals(RuleCompiler.SOURCE) && !name.equals(RuleCompiler.PARAMS)) {
                    if (columns.isPresent() && !columns.get().contains(name)) {
                        problems.add(new FieldProblem("condition", "unknown column '" + name + "' of metric '" + metric
                                + "' at " + position(ast, node.expr().id()) + "; its columns and tags are "
                                + columns.get().stream().sorted().toList()));
                    }
                    names.add(name);
                }
            } else if (node.getKind() == CelExpr.ExprKind.Kind.SELECT
                    && node.expr().select().operand().getKind() == CelExpr.ExprKind.Kind.IDENT
                    && node.expr().select().operand().ident().name().equals(RuleCompiler.PARAMS)
                    && !params.contains(node.expr().select().field())) {
                problems.add(new FieldProblem("condition", "params." + node.expr().select().field() + " at "
                        + position(ast, node.expr().id()) + " is not a parameter of the rule; params has "
                        + params.stream().sorted().toList()));
            }
        });
        long cost = cost(navigable.getRoot());
        if (cost > costLimit) {
            problems.add(new FieldProblem("condition", "its estimated cost " + cost + " is over the limit of "
                    + costLimit + " (pgharvest.alert.cost-limit); a comprehension over a list of unknown size counts "
                    + ASSUMED_ITERATIONS + " iterations"));
        }
        if (problems.size() > before) {
            return null;
        }
        CelCompilerBuilder checker = CelCompilerFactory.standardCelCompilerBuilder().setOptions(OPTIONS)
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS).setResultType(SimpleType.BOOL)
                .addVar(RuleCompiler.SOURCE, MapType.create(SimpleType.STRING, SimpleType.DYN))
                .addVar(RuleCompiler.PARAMS, MapType.create(SimpleType.STRING, SimpleType.DOUBLE))
                .addVar(RuleCompiler.PREVIOUS, MapType.create(SimpleType.STRING, SimpleType.DYN));
        names.forEach(name -> checker.addVar(name, SimpleType.DYN));
        CelValidationResult checked = checker.build().check(ast);
        if (checked.hasError()) {
            report(checked, problems);
            return null;
        }
        try {
            return new Result(RUNTIME.createProgram(astOf(checked)), names.stream().findFirst().orElse(null),
                    usesPrevious.get(), Set.copyOf(names));
        } catch (CelEvaluationException e) {
            problems.add(new FieldProblem("condition", "cannot be prepared: " + e.getMessage()));
            return null;
        }
    }

    /** Whether {@code name} is a comprehension's variable ({@code x} of {@code list.all(x, x > 1)}) around the node. */
    private static boolean isBound(CelNavigableExpr node, String name) {
        for (var parent = node.parent(); parent.isPresent(); parent = parent.get().parent()) {
            if (parent.get().getKind() == CelExpr.ExprKind.Kind.COMPREHENSION) {
                var comprehension = parent.get().expr().comprehension();
                if (comprehension.iterVar().equals(name) || comprehension.accuVar().equals(name)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A static estimate: one per node, a comprehension's loop times the elements it visits. */
    private static long cost(CelNavigableExpr node) {
        if (node.getKind() != CelExpr.ExprKind.Kind.COMPREHENSION) {
            return 1 + node.children().mapToLong(ConditionCompiler::cost).sum();
        }
        var c = node.expr().comprehension();
        CelExpr range = c.iterRange();
        long iterations = range.getKind() == CelExpr.ExprKind.Kind.LIST ? range.list().elements().size()
                : ASSUMED_ITERATIONS;
        return 1 + cost(CelNavigableExpr.fromExpr(range)) + cost(CelNavigableExpr.fromExpr(c.accuInit()))
                + iterations * (cost(CelNavigableExpr.fromExpr(c.loopCondition()))
                        + cost(CelNavigableExpr.fromExpr(c.loopStep())))
                + cost(CelNavigableExpr.fromExpr(c.result()));
    }

    private static String position(CelAbstractSyntaxTree ast, long id) {
        Integer offset = ast.getSource().getPositionsMap().get(id);
        if (offset == null) {
            return "an unknown position";
        }
        return ast.getSource().getOffsetLocation(offset)
                .map(l -> "line " + l.getLine() + ", column " + (l.getColumn() + 1))
                .orElse("offset " + offset);
    }

    private static void report(CelValidationResult result, List<FieldProblem> problems) {
        for (CelIssue issue : result.getErrors()) {
            var l = issue.getSourceLocation();
            problems.add(new FieldProblem("condition", issue.getMessage() + " at line " + l.getLine() + ", column "
                    + (l.getColumn() + 1)));
        }
    }

    private static CelAbstractSyntaxTree astOf(CelValidationResult result) {
        try {
            return result.getAst();
        } catch (CelValidationException e) {
            throw new IllegalStateException("a result without errors has an AST", e);
        }
    }
}
