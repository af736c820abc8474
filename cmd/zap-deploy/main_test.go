package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/scripttest"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

func TestScripts(t *testing.T) { testscript.Run(t, scripttest.Params("testdata/script")) }
