// Command fitfields fits the field model on the gold set and writes the
// checked-in table classify/fieldmodel.json:
//
//	go run ./classify/internal/fitfields [-gold ../shared/eval/gold] [-out classify/fieldmodel.json]
//
// Fitting is deterministic (Newton's method from zero weights, rounded),
// so the same gold and code give the same table; TestFieldModelFresh in
// classify/evalcases fails when the table is stale.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/classify/evalcases"
)

func main() {
	gold := flag.String("gold", "../shared/eval/gold", "directory of gold *.json files")
	out := flag.String("out", "classify/fieldmodel.json", "where to write the table")
	lambda := flag.Float64("lambda", evalcases.FitLambda, "L2 penalty")
	flag.Parse()
	if err := run(*gold, *out, *lambda); err != nil {
		fmt.Fprintln(os.Stderr, "fitfields:", err)
		os.Exit(1)
	}
}

func run(gold, out string, lambda float64) error {
	exs, err := evalcases.LoadExamples(context.Background(), evalcases.Config{GoldDir: gold})
	if err != nil {
		return err
	}
	m, err := evalcases.FitFieldModel(classify.New(classify.Config{HandRules: true}), exs, lambda)
	if err != nil {
		return err
	}
	js, err := evalcases.MarshalFieldModel(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, js, 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	fmt.Printf("wrote %s: %d features, %d fields, lambda %g, %d documents\n", out, len(m.Features), len(m.Fields), lambda, len(exs))
	return nil
}
