# cuda/cubature/build.mk - problem cubature's own build rules, included by the Makefile.
# Its kernels for a user's integrand, in LTO-IR: one fatbin a precision (d, f) and kernel (the
# rule kernel for dimension 0 (any) or 4..8, twophase's phase 2: p2), linked at run time with
# the integrand that NVRTC compiles (user_kernels.cuh), embedded by user_embed.S. The generic
# .cu rule leaves user_kernels.cu alone: it is built once per fatbin here.
CU_OWN_RULES += cuda/cubature/user_kernels.cu
ifneq ($(strip $(NVCC)),)
CUB_USER_KERNELS := $(foreach s,d f,$(foreach k,0 4 5 6 7 8 p2,$(s)_$(k)))
CUB_USER_FATBINS := $(CUB_USER_KERNELS:%=$(BUILD)/cuda/cubature/user_%.fatbin)
CU_OWN_OBJ       += $(BUILD)/cuda/cubature/user_embed.o
endif
cub_user_prec  = $(word 1,$(subst _, ,$1))
cub_user_flags = -DCUB_USER_S=$(call cub_user_prec,$1) \
	-DCUB_USER_T=$(if $(filter d,$(call cub_user_prec,$1)),double,float) \
	$(if $(filter p2,$(word 2,$(subst _, ,$1))),,-DCUB_USER_RULE_DN=$(word 2,$(subst _, ,$1)))

$(BUILD)/cuda/cubature/user_%.fatbin: cuda/cubature/user_kernels.cu cuda/cubature/user_kernels.cuh \
	cuda/cubature/rule_kernel.cuh src/problems/cubature/cubature_gpu.h \
	src/problems/cubature/cubature_math.h src/problems/cubature/cubature_rules.h \
	src/expr/reduced_math.h | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(NVCC) $(LTO_NVCCFLAGS) $(call cub_user_flags,$*) -o $@ $<

$(BUILD)/cuda/cubature/user_embed.o: cuda/cubature/user_embed.S $(CUB_USER_FATBINS)
	@mkdir -p $(dir $@)
	$(CC) -c -Wa,-I$(BUILD)/cuda/cubature -o $@ $<
