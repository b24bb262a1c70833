package classify

import (
	"slices"
	"testing"
)

// Russian component words are found in their inflected forms, and
// "клиент" alone (a customer, a connection) is not client software.
func TestComponentCuesRussianForms(t *testing.T) {
	cases := []struct {
		text string
		want []string
		not  []string
	}{
		{"запись в базе данных шла медленно", []string{"database"}, nil},
		{"сервис потерял доступ к сети на десять минут", []string{"network"}, nil},
		{"после деплоя пайплайн упал", []string{"ci-cd"}, nil},
		{"ошибка в ядре linux при сбросе страниц", []string{"linux-kernel"}, nil},
		{"клиент пожаловался, что заказы пропали", nil, []string{"client"}},
		{"в клиентском приложении кнопка не отвечала", []string{"client"}, nil},
	}
	for _, tc := range cases {
		got := componentIndex.counts(tc.text)
		for _, w := range tc.want {
			if got[w] == 0 {
				t.Errorf("%q: no %s cue (got %v)", tc.text, w, got)
			}
		}
		for _, w := range tc.not {
			if got[w] > 0 {
				t.Errorf("%q: %s cue found, want none", tc.text, w)
			}
		}
	}
}

// A software defect in no vendor's component is in the team's own
// application, whatever word the post uses for it; a kernel defect is not.
func TestDefectInOwnCodeIsApplication(t *testing.T) {
	cases := []struct {
		name, md string
		app      bool
	}{
		{"en own code", `# Sync command wrote empty files

## Symptoms

Users got empty output files after running the sync command.

## Root cause

The root cause was a bug in the copy loop: it truncated the target before checking that the source could be read.

## Fix

- We moved the check before the truncation.
`, true},
		{"en kernel", `# Nodes stalled on page reclaim

## Symptoms

Nodes stalled for seconds at a time.

## Root cause

The root cause was a bug in the Linux kernel: memory cgroup reclaim looped over dead cgroups.

## Fix

- We rebooted the nodes onto a patched kernel.
`, false},
		{"ru own code", `# Команда sync создавала пустые файлы

## Симптомы

После запуска команды sync пользователи получали пустые файлы.

## Корневая причина

Причина в баге цикла копирования: он обрезал целевой файл до проверки, что исходный читается.

## Исправление

- Перенесли проверку до обрезки файла.
`, true},
		{"zh own code", `# 同步命令生成空文件

## 现象

执行同步命令后输出文件为空。

## 根因

根本原因是拷贝循环的逻辑写错了：在确认源文件可读之前就清空了目标文件。

## 解决方法

- 把检查移到清空之前。
`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := classifyMarkdown(t, tc.md)
			if c.RootCause.Category != "software-defect" {
				t.Fatalf("category %q, want software-defect (cause %q)", c.RootCause.Category, c.RootCause.Description)
			}
			if got := slices.Contains(c.Components, "application"); got != tc.app {
				t.Errorf("components %v: application %v, want %v", c.Components, got, tc.app)
			}
		})
	}
}
